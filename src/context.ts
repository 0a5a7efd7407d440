import type { Database } from './db/database.js';
import type { Principal } from './modules/auth/authenticate.js';
import { createDeploymentLoaders } from './modules/deployments/deployments.loaders.js';
import { createWorkflowLoaders } from './modules/workflows/workflows.loaders.js';

/** Batched loaders of one request, scoped to its organization. */
export function createLoaders(db: Database, organizationId: string) {
  return {
    workflows: createWorkflowLoaders(db, organizationId),
    deployments: createDeploymentLoaders(db, organizationId),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

export function createContext(db: Database, principal: Principal) {
  return {
    db,
    principal,
    organizationId: principal.organizationId,
    loaders: createLoaders(db, principal.organizationId),
  };
}

/** What every resolver receives. */
export type RequestContext = ReturnType<typeof createContext>;
