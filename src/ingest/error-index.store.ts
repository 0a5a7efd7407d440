import type { Transaction } from '../db/database.js';
import { errorGroups, executionErrorGroups } from '../db/tables.js';
import { type RowFor, unnestInsert, unnestUpsert } from '../db/unnest-insert.js';
import { errorGroupOf } from '../rollups/fingerprint.js';

/** One of an execution's error groups at one level ('' its own errors, else a capability's events). */
export interface ErrorRow {
  readonly fingerprint: string;
  readonly capabilityId: string;
  readonly occurrences: number;
}

/**
 * An execution's error rows and the start they are stored under: null while the execution has
 * not arrived (only its events' errors are known). A group's executions are listed by that start
 * (migration 0008), so rows move with their execution.
 */
export interface ExecutionErrorRows {
  readonly startedAt: number | null;
  readonly rows: readonly ErrorRow[];
}

export type ErrorRowsByExecution = Map<string, ExecutionErrorRows>;

/** The stored error rows of executions (uuid -> organization). */
export async function readErrorRows(
  tx: Transaction,
  executions: ReadonlyMap<string, string>,
): Promise<ErrorRowsByExecution> {
  const rows = await tx.query<{
    execution_uuid: string;
    fingerprint: string;
    capability_id: string;
    occurrences: number;
    started_at: Date | null;
  }>(
    `select g.execution_uuid, g.fingerprint, g.capability_id, g.occurrences, g.started_at
     from unnest($1::uuid[], $2::uuid[]) as k(organization_id, execution_uuid)
     join execution_error_groups g on g.organization_id = k.organization_id and g.execution_uuid = k.execution_uuid`,
    [[...executions.values()], [...executions.keys()]],
  );
  const byExecution: ErrorRowsByExecution = new Map();
  for (const row of rows) {
    byExecution.set(row.execution_uuid, {
      startedAt: row.started_at === null ? null : row.started_at.getTime(),
      rows: [
        ...(byExecution.get(row.execution_uuid)?.rows ?? []),
        {
          fingerprint: row.fingerprint,
          capabilityId: row.capability_id,
          occurrences: Number(row.occurrences),
        },
      ],
    });
  }
  return byExecution;
}

/** What is stored for an execution: nothing without rows, else its start and its rows. */
function storedForm(entry: ExecutionErrorRows | undefined): string {
  if (!entry || entry.rows.length === 0) return '';
  const rows = entry.rows.map((r) => [r.fingerprint, r.capabilityId, r.occurrences]).sort();
  return JSON.stringify([entry.startedAt, rows]);
}

/** Replaces the error rows of executions whose rows or start changed from `before` to `after`. */
export async function writeErrorRows(
  tx: Transaction,
  organizationOf: ReadonlyMap<string, string>,
  before: ErrorRowsByExecution,
  after: ErrorRowsByExecution,
): Promise<void> {
  const changed = [...organizationOf.keys()].filter(
    (uuid) => storedForm(before.get(uuid)) !== storedForm(after.get(uuid)),
  );
  if (changed.length === 0) return;
  await tx.query(
    `delete from execution_error_groups g
     using unnest($1::uuid[], $2::uuid[]) as k(organization_id, execution_uuid)
     where g.organization_id = k.organization_id and g.execution_uuid = k.execution_uuid`,
    [changed.map((uuid) => organizationOf.get(uuid)!), changed],
  );
  const rows = changed.flatMap((uuid) => {
    const entry = after.get(uuid);
    const startedAt = entry?.startedAt == null ? null : new Date(entry.startedAt);
    return (entry?.rows ?? []).map(
      (row): RowFor<typeof executionErrorGroups.columns> => ({
        organization_id: organizationOf.get(uuid)!,
        execution_uuid: uuid,
        fingerprint: row.fingerprint,
        capability_id: row.capabilityId,
        occurrences: row.occurrences,
        started_at: startedAt,
      }),
    );
  });
  if (rows.length === 0) return;
  const insert = unnestInsert(executionErrorGroups.name, executionErrorGroups.columns, rows);
  await tx.query(insert.text, insert.params);
}

/**
 * Records each group's pattern, its latest message and its first and last sighting (by the start
 * of the execution that carried it). Sightings only ever widen that span. Returns the groups an
 * organization saw for the first time.
 */
export async function upsertErrorGroups(
  tx: Transaction,
  sightings: ReadonlyArray<{ organizationId: string; workflowUuid: string; message: string; at: number }>,
): Promise<
  Array<{ organizationId: string; fingerprint: string; workflowUuid: string; firstSeenAt: number }>
> {
  const groups = new Map<
    string,
    {
      organizationId: string;
      workflowUuid: string;
      fingerprint: string;
      pattern: string;
      sample: string;
      first: number;
      last: number;
    }
  >();
  for (const sighting of sightings) {
    const { fingerprint, pattern } = errorGroupOf(sighting.message);
    const id = `${sighting.organizationId}/${fingerprint}`;
    const group = groups.get(id);
    if (!group) {
      groups.set(id, {
        organizationId: sighting.organizationId,
        workflowUuid: sighting.workflowUuid,
        fingerprint,
        pattern,
        sample: sighting.message,
        first: sighting.at,
        last: sighting.at,
      });
      continue;
    }
    if (sighting.at >= group.last) {
      group.last = sighting.at;
      group.sample = sighting.message;
    }
    if (sighting.at < group.first) {
      group.first = sighting.at;
      group.workflowUuid = sighting.workflowUuid;
    }
  }
  if (groups.size === 0) return [];
  const list = [...groups.values()].sort((a, b) =>
    a.organizationId === b.organizationId
      ? a.fingerprint.localeCompare(b.fingerprint)
      : a.organizationId.localeCompare(b.organizationId),
  );
  const upsert = unnestUpsert(
    errorGroups.name,
    errorGroups.columns,
    list.map((g) => ({
      organization_id: g.organizationId,
      fingerprint: g.fingerprint,
      pattern: g.pattern,
      sample_message: g.sample,
      first_seen_at: new Date(g.first),
      last_seen_at: new Date(g.last),
    })),
    {
      key: ['organization_id', 'fingerprint'],
      set: [
        [
          'sample_message',
          `case when excluded.last_seen_at >= error_groups.last_seen_at
                             then excluded.sample_message else error_groups.sample_message end`,
        ],
        ['first_seen_at', 'least(error_groups.first_seen_at, excluded.first_seen_at)'],
        ['last_seen_at', 'greatest(error_groups.last_seen_at, excluded.last_seen_at)'],
      ],
      returning: 'organization_id, fingerprint, (xmax = 0) as inserted',
    },
  );
  const inserted = await tx.query<{ organization_id: string; fingerprint: string }>(
    upsert.text,
    upsert.params,
  );
  return inserted
    .filter((row) => (row as { inserted?: boolean }).inserted)
    .map((row) => {
      const group = groups.get(`${row.organization_id}/${row.fingerprint}`)!;
      return {
        organizationId: group.organizationId,
        fingerprint: group.fingerprint,
        workflowUuid: group.workflowUuid,
        firstSeenAt: group.first,
      };
    });
}
