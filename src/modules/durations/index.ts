import type { ApiModule } from '../api-module.js';
import { durationsResolvers } from './durations.resolvers.js';

export const durationsModule: ApiModule = {
  sdl: new URL('./durations.graphql', import.meta.url),
  resolvers: durationsResolvers,
  extended: true,
};
