import type {
  CreateServiceLevelObjectiveInput,
  ServiceLevelObjective,
  UpdateServiceLevelObjectiveInput,
} from '../../../admin/admin-types.generated.js';
import type { Client } from '../../../client/index.js';
import { sloRules } from '../../../metrics/slo-rules.js';
import { type AdminConnection, adminRequest } from '../../admin-client.js';
import type { Palette } from '../../render/colors.js';
import { formatPercent, renderTable } from '../../render/table.js';

export const createObjective = (
  connection: AdminConnection,
  input: CreateServiceLevelObjectiveInput,
): Promise<ServiceLevelObjective> => adminRequest(connection, 'createServiceLevelObjective', { input });

export const listObjectives = (
  connection: AdminConnection,
  organizationId: string,
): Promise<ServiceLevelObjective[]> =>
  adminRequest(connection, 'serviceLevelObjectives', { input: { organizationId } });

export const updateObjective = (
  connection: AdminConnection,
  input: UpdateServiceLevelObjectiveInput,
): Promise<ServiceLevelObjective> => adminRequest(connection, 'updateServiceLevelObjective', { input });

export const deleteObjective = (connection: AdminConnection, id: string): Promise<ServiceLevelObjective> =>
  adminRequest(connection, 'deleteServiceLevelObjective', { input: { id } });

/** The rule file of one organization's objectives, or of every organization's. */
export async function prometheusRules(connection: AdminConnection, organizationId?: string): Promise<string> {
  const organizations = organizationId
    ? [organizationId]
    : (await adminRequest(connection, 'organizations', {})).map((org) => org.organizationId);
  const objectives = (await Promise.all(organizations.map((id) => listObjectives(connection, id)))).flat();
  return sloRules(objectives, organizationId);
}

const objectiveText = (o: ServiceLevelObjective) =>
  `${o.indicator === 'LATENCY' ? `under ${o.thresholdMs} ms` : 'success'} >= ${o.target} over ${o.periodDays}d`;

export function renderObjectives(objectives: readonly ServiceLevelObjective[], p: Palette): string {
  if (objectives.length === 0) return 'No service level objectives in this organization.';
  return renderTable(
    objectives,
    [
      { header: 'OBJECTIVE ID', value: (o) => o.id },
      { header: 'NAME', value: (o) => o.name, max: 32 },
      { header: 'WORKFLOW', value: (o) => o.workflowUUID ?? 'all' },
      { header: 'OBJECTIVE', value: objectiveText, max: 50 },
    ],
    p,
  );
}

export const renderObjective = (o: ServiceLevelObjective): string =>
  `Objective ${o.id} (${o.name}): ${objectiveText(o)}${o.workflowUUID ? ` for workflow ${o.workflowUUID}` : ' for the organization'}.`;

export const renderDeleted = (o: ServiceLevelObjective): string =>
  `Objective ${o.id} (${o.name}) is deleted, with its SLO_BURN alert rules.`;

export type ServiceLevels = Awaited<ReturnType<Client['serviceLevels']>>['data'];

const STATUS_STYLE = { OK: 'green', TICKET: 'yellow', PAGE: 'red', NO_DATA: 'dim' } as const;

export function renderStatus(levels: ServiceLevels, p: Palette): string {
  if (levels.length === 0) return 'No service level objectives.';
  const rate = (level: ServiceLevels[number], window: string) => {
    const value = level.burnRates.find((b) => b.window === window)?.rate;
    return value === null || value === undefined ? '-' : value.toFixed(1);
  };
  return renderTable(
    levels,
    [
      { header: 'NAME', value: (l) => l.name, max: 32 },
      { header: 'WORKFLOW', value: (l) => l.workflowName ?? 'all', max: 24 },
      { header: 'STATUS', value: (l) => l.status, style: (text, l) => p[STATUS_STYLE[l.status]](text) },
      { header: 'TARGET', value: (l) => formatPercent(l.target) },
      { header: 'ATTAINED', value: (l) => (l.attainment === null ? '-' : formatPercent(l.attainment)) },
      { header: 'GOOD/TOTAL', value: (l) => `${l.good}/${l.total}` },
      {
        header: 'BUDGET LEFT',
        value: (l) => (l.errorBudgetRemaining === null ? '-' : formatPercent(l.errorBudgetRemaining)),
        style: (text, l) => ((l.errorBudgetRemaining ?? 0) < 0 ? p.red(text) : text),
      },
      {
        header: 'BURN 5m/1h/6h/1d/3d',
        value: (l) => ['5m', '1h', '6h', '1d', '3d'].map((w) => rate(l, w)).join(' '),
      },
    ],
    p,
  );
}
