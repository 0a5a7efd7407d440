import type { ApiModule } from '../api-module.js';
import { capabilitiesResolvers } from './capabilities.resolvers.js';

export const capabilitiesModule: ApiModule = {
  sdl: new URL('./capabilities.graphql', import.meta.url),
  resolvers: capabilitiesResolvers,
  extended: true,
};
