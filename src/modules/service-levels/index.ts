import type { ApiModule } from '../api-module.js';
import { serviceLevelsResolvers } from './service-levels.resolvers.js';

export const serviceLevelsModule: ApiModule = {
  sdl: new URL('./service-levels.graphql', import.meta.url),
  resolvers: serviceLevelsResolvers,
  extended: true,
};
