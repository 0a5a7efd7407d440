import type { ApiModule } from '../api-module.js';
import { activityResolvers } from './activity.resolvers.js';

export const activityModule: ApiModule = {
  sdl: new URL('./activity.graphql', import.meta.url),
  resolvers: activityResolvers,
};
