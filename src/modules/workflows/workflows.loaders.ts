import DataLoader from 'dataloader';
import type { Queryable } from '../../db/database.js';
import { allTimeCounts, countWindows, type WindowCounts } from '../../rollups/execution-counts.store.js';
import { latestExecutionStarts } from './workflows.store.js';

export interface WorkflowWindowKey {
  readonly uuid: string;
  /** Start of the window in ms since the epoch; the window is open-ended. */
  readonly from: number;
}

/** One query per page of workflows for each aggregate, whatever the page size. */
export function createWorkflowLoaders(db: Queryable, organizationId: string) {
  return {
    totals: new DataLoader<string, WindowCounts>(async (uuids) => {
      const counts = await allTimeCounts(db, organizationId, uuids);
      return uuids.map((uuid) => counts.get(uuid)!);
    }),
    executedAt: new DataLoader<string, Date | null>(async (uuids) => {
      const rows = new Map(
        (await latestExecutionStarts(db, organizationId, uuids)).map((r) => [r.workflow_uuid, r.started_at]),
      );
      return uuids.map((uuid) => rows.get(uuid) ?? null);
    }),
    window: new DataLoader<WorkflowWindowKey, WindowCounts, string>(
      async (keys) => {
        const counts = await countWindows(
          db,
          organizationId,
          keys.map((key, index) => ({ key: index, workflowUuid: key.uuid, from: key.from, to: null })),
        );
        return keys.map((_, index) => counts.get(index)!);
      },
      { cacheKeyFn: (key) => `${key.uuid}:${key.from}` },
    ),
  };
}
