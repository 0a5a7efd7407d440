import type { ApiModule } from '../api-module.js';
import { executionsResolvers } from './executions.resolvers.js';

export const executionsModule: ApiModule = {
  sdl: new URL('./executions.graphql', import.meta.url),
  resolvers: executionsResolvers,
};
