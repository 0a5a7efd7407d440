import type { ApiModule } from '../api-module.js';
import { workflowsResolvers } from './workflows.resolvers.js';

export const workflowsModule: ApiModule = {
  sdl: new URL('./workflows.graphql', import.meta.url),
  resolvers: workflowsResolvers,
};
