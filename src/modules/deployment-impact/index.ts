import type { ApiModule } from '../api-module.js';
import { deploymentImpactResolvers } from './deployment-impact.resolvers.js';

export const deploymentImpactModule: ApiModule = {
  sdl: new URL('./deployment-impact.graphql', import.meta.url),
  resolvers: deploymentImpactResolvers,
  extended: true,
};
