import { notFound } from '../../errors.js';
import { MIN_TIME } from '../../lib/time.js';
import { normalizeUuid } from '../../lib/uuid.js';
import { inclusive } from '../../rollups/windows.js';
import { subfieldNames } from '../../schema/selected-fields.js';
import { toDeployment } from '../deployments/deployment.mapper.js';
import {
  countDeployments,
  type DeploymentRow,
  findDeployment,
  listDeployments,
} from '../deployments/deployments.store.js';
import { type RankedGroup, toRankedGroups } from '../error-groups/error-group.mapper.js';
import { answerGroups, createErrorGroupLoaders } from '../error-groups/error-groups.loaders.js';
import type { GroupCount } from '../error-groups/error-groups.store.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { toPaging } from '../shared/paging.js';
import { workflowScope } from '../shared/workflow-scope.js';
import {
  groupsInWindows,
  groupsSeenBefore,
  previousDeployedAt,
  type SideWindow,
  sideFigures,
} from './deployment-impact.store.js';
import { compare, MIN_FINISHED, type Span, sidesOf, summarize } from './impact-verdict.js';

/** The deployments asked for: one page of the workflow's, or the one named. */
async function deploymentsAsked(
  db: Parameters<typeof findDeployment>[0],
  organizationId: string,
  workflowUuid: string,
  input: { deploymentUUID?: string | null; page?: Parameters<typeof toPaging>[0] },
): Promise<{ rows: DeploymentRow[]; count: number }> {
  const paging = toPaging(input.page);
  if (input.deploymentUUID !== undefined && input.deploymentUUID !== null) {
    const uuid = normalizeUuid(input.deploymentUUID);
    const row = uuid === undefined ? undefined : await findDeployment(db, organizationId, uuid);
    if (!row || row.workflow_uuid !== workflowUuid) throw notFound('deployment not found');
    return { rows: paging.offset === 0 ? [row] : [], count: 1 };
  }
  const filter = { workflowUuid };
  const [rows, count] = await Promise.all([
    listDeployments(db, organizationId, filter, { field: 'DEPLOYED_AT', order: 'DESC' }, paging),
    countDeployments(db, organizationId, filter),
  ]);
  return { rows, count };
}

const windowOfSpan = (span: Span) => ({ from: new Date(span.from), to: new Date(span.to) });

export const deploymentImpactResolvers: Resolvers = {
  Query: {
    deploymentImpact: async (_parent, { input }, ctx, info) => {
      const { db, organizationId } = ctx;
      const workflowUuid = await workflowScope(ctx, input.workflowUUID, 'notFound');
      const { rows, count } = await deploymentsAsked(db, organizationId, workflowUuid, input);
      if (rows.length === 0) return { data: [], count };
      const now = ctx.now();
      const previous = await previousDeployedAt(
        db,
        organizationId,
        workflowUuid,
        rows.map((row) => row.uuid),
      );
      const sides = rows.map((row) =>
        sidesOf(
          row.deployed_at.getTime(),
          previous.get(row.uuid)?.getTime() ?? null,
          row.superseded_at?.getTime() ?? null,
          now,
        ),
      );
      // Keys 2i (before) and 2i + 1 (after) of the i-th deployment.
      // Only the latest deployment's after side may end now; every other edge is a deployment's.
      const windows: SideWindow[] = sides.flatMap((side, i) => [
        { key: 2 * i, ...side.before, fixed: 'both' as const },
        {
          key: 2 * i + 1,
          ...side.after,
          fixed: side.after.to === now ? ('from' as const) : ('both' as const),
        },
      ]);
      const selected = subfieldNames(info, 'data');
      const withGroups = selected.has('newErrorGroups') || selected.has('resolvedErrorGroups');
      const [figures, groups] = await Promise.all([
        sideFigures(db, organizationId, workflowUuid, windows),
        withGroups ? groupsInWindows(db, organizationId, workflowUuid, windows) : null,
      ]);
      const seenBefore =
        groups === null
          ? null
          : await groupsSeenBefore(
              db,
              organizationId,
              workflowUuid,
              sides.map((side, i) => ({
                key: i,
                before: side.after.from,
                fingerprints: [...groups.get(2 * i + 1)!.keys()],
              })),
              MIN_TIME,
            );
      const ranked = rows.map((row, i) => {
        const side = sides[i]!;
        const before = figures.get(2 * i)!;
        const after = figures.get(2 * i + 1)!;
        const beforeSummary = summarize(before);
        const afterSummary = summarize(after);
        const listed = (span: Span, list: GroupCount[]) => {
          list.sort((a, b) => b.occurrences - a.occurrences || (a.fingerprint < b.fingerprint ? -1 : 1));
          return toRankedGroups(
            list,
            { window: inclusive(span), filter: { workflowUuid, capabilityId: null } },
            null,
          );
        };
        let newErrorGroups: RankedGroup[] = [];
        let resolvedErrorGroups: RankedGroup[] = [];
        if (groups !== null && seenBefore !== null) {
          const inBefore = groups.get(2 * i)!;
          const inAfter = groups.get(2 * i + 1)!;
          const seen = seenBefore.get(i)!;
          newErrorGroups = listed(
            side.after,
            [...inAfter.values()].filter((group) => !seen.has(group.fingerprint)),
          );
          resolvedErrorGroups =
            after.executions < MIN_FINISHED
              ? []
              : listed(
                  side.before,
                  [...inBefore.values()].filter((group) => !inAfter.has(group.fingerprint)),
                );
        }
        return {
          deployment: toDeployment(row),
          ...compare(before, after, beforeSummary, afterSummary),
          before: { ...windowOfSpan(side.before), ...beforeSummary },
          after: { ...windowOfSpan(side.after), ...afterSummary },
          newErrorGroups,
          resolvedErrorGroups,
        };
      });
      // Every list's groups answered at once: their details read in one statement a part.
      const loaders = ctx.loaders.of(createErrorGroupLoaders);
      const groupFields = new Set([
        ...subfieldNames(info, 'data', 'newErrorGroups'),
        ...subfieldNames(info, 'data', 'resolvedErrorGroups'),
      ]);
      const data = await Promise.all(
        ranked.map(async (impact) => {
          const [newErrorGroups, resolvedErrorGroups] = await Promise.all([
            answerGroups(loaders, impact.newErrorGroups, groupFields),
            answerGroups(loaders, impact.resolvedErrorGroups, groupFields),
          ]);
          return { ...impact, newErrorGroups, resolvedErrorGroups };
        }),
      );
      return { data, count };
    },
  },
};
