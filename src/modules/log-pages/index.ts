import type { ApiModule } from '../api-module.js';
import { logPagesResolvers } from './log-pages.resolvers.js';

export const logPagesModule: ApiModule = {
  sdl: new URL('./log-pages.graphql', import.meta.url),
  resolvers: logPagesResolvers,
  extended: true,
};
