import type { ApiModule } from '../api-module.js';
import { accountsResolvers } from './accounts.resolvers.js';

export const accountsModule: ApiModule = {
  sdl: new URL('./accounts.graphql', import.meta.url),
  resolvers: accountsResolvers,
};
