import type { ApiModule } from '../api-module.js';
import { errorGroupsResolvers } from './error-groups.resolvers.js';

export const errorGroupsModule: ApiModule = {
  sdl: new URL('./error-groups.graphql', import.meta.url),
  resolvers: errorGroupsResolvers,
  extended: true,
};
