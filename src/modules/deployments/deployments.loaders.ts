import DataLoader from 'dataloader';
import type { Queryable } from '../../db/database.js';
import { countWindows, type WindowCounts } from '../../rollups/execution-counts.store.js';
import type { DeploymentParent } from './deployment.mapper.js';

/** Executions of each deployment's reign (from its deployedAt to the next deployment's), one query a page. */
export function createDeploymentLoaders(db: Queryable, organizationId: string) {
  return {
    reign: new DataLoader<DeploymentParent, WindowCounts, string>(
      async (deployments) => {
        const counts = await countWindows(
          db,
          organizationId,
          deployments.map((d, index) => ({
            key: index,
            workflowUuid: d.workflowUuid,
            from: d.deployedAt.getTime(),
            to: d.supersededAt?.getTime() ?? null,
          })),
        );
        return deployments.map((_, index) => counts.get(index)!);
      },
      { cacheKeyFn: (d) => d.uuid },
    ),
  };
}
