import type { ApiModule } from '../api-module.js';
import { logSearchResolvers } from './log-search.resolvers.js';

export const logSearchModule: ApiModule = {
  sdl: new URL('./log-search.graphql', import.meta.url),
  resolvers: logSearchResolvers,
  extended: true,
};
