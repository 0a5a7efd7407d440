import type { ApiModule } from '../api-module.js';
import { deploymentsResolvers } from './deployments.resolvers.js';

export const deploymentsModule: ApiModule = {
  sdl: new URL('./deployments.graphql', import.meta.url),
  resolvers: deploymentsResolvers,
};
