/** Every module of the public API, one line each: the schema and its resolvers are built from this list. */

import type { SchemaKind } from '../config.js';
import { accountsModule } from './accounts/index.js';
import { activityModule } from './activity/index.js';
import { anomaliesModule } from './anomalies/index.js';
import type { ApiModule } from './api-module.js';
import { capabilitiesModule } from './capabilities/index.js';
import { deploymentImpactModule } from './deployment-impact/index.js';
import { deploymentsModule } from './deployments/index.js';
import { durationsModule } from './durations/index.js';
import { errorGroupsModule } from './error-groups/index.js';
import { executionsModule } from './executions/index.js';
import { logPagesModule } from './log-pages/index.js';
import { logSearchModule } from './log-search/index.js';
import { serviceLevelsModule } from './service-levels/index.js';
import { workflowsModule } from './workflows/index.js';

export const API_MODULES: readonly ApiModule[] = [
  accountsModule,
  workflowsModule,
  activityModule,
  deploymentsModule,
  executionsModule,
  errorGroupsModule,
  durationsModule,
  capabilitiesModule,
  logSearchModule,
  logPagesModule,
  deploymentImpactModule,
  anomaliesModule,
  serviceLevelsModule,
];

/** The modules a schema of this kind serves: the hosted one leaves out the extensions. */
export const modulesOf = (kind: SchemaKind): ApiModule[] =>
  API_MODULES.filter((module) => kind === 'extended' || !module.extended);
