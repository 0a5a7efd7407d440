import type { ApiModule } from '../api-module.js';
import { anomaliesResolvers } from './anomalies.resolvers.js';

export const anomaliesModule: ApiModule = {
  sdl: new URL('./anomalies.graphql', import.meta.url),
  resolvers: anomaliesResolvers,
  extended: true,
};
