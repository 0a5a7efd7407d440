import { type Command, InvalidArgumentError, Option } from 'commander';
import { ServiceLevelIndicatorValues } from '../../../admin/admin-types.generated.js';
import { type AdminFlags, adminSubcommand, connectionOf, printResult } from '../../admin-command.js';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import type { CliIo } from '../../io.js';
import { integer, number } from '../../option-parsers.js';
import { stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import {
  createObjective,
  deleteObjective,
  listObjectives,
  prometheusRules,
  renderDeleted,
  renderObjective,
  renderObjectives,
  renderStatus,
  updateObjective,
} from './main.js';

interface ObjectiveFlags extends AdminFlags {
  name?: string;
  workflow?: string;
  indicator?: string;
  target?: number;
  thresholdMs?: number;
  periodDays?: number;
}

/** The flags of an objective's fields, shared by create and update. */
function objectiveOptions(command: Command): Command {
  return command
    .option('--workflow <workflowUUID>', 'only this workflow (default: the organization as a whole)')
    .addOption(
      new Option('--indicator <indicator>', 'what counts as good').choices(ServiceLevelIndicatorValues),
    )
    .option('--target <share>', 'the share of good executions aimed at, 0.5 to 0.99999', number)
    .option('--threshold-ms <ms>', 'LATENCY: faster than this is good (rounded down to a bin bound)', number)
    .option('--period-days <days>', 'the period measured, 1 to 90 days (default 28)', integer);
}

const fields = (flags: ObjectiveFlags) => ({
  workflowUUID: flags.workflow ?? null,
  thresholdMs: flags.thresholdMs ?? null,
  periodDays: flags.periodDays ?? null,
});

export function register(program: Command, io: CliIo): void {
  const slo = program
    .command('slo')
    .description(
      'Service level objectives: manage them through the admin interface, see their status, print Prometheus rules',
    );

  objectiveOptions(
    adminSubcommand(slo, 'create', 'Create a service level objective')
      .requiredOption('--org <organizationId>', 'the organization')
      .requiredOption('--name <name>', 'the objective name'),
  ).action(async (flags: ObjectiveFlags & { org: string; name: string }) => {
    if (flags.indicator === undefined || flags.target === undefined)
      throw new InvalidArgumentError('--indicator and --target are required');
    const created = await createObjective(connectionOf(flags), {
      organizationId: flags.org,
      name: flags.name,
      indicator: flags.indicator as (typeof ServiceLevelIndicatorValues)[number],
      target: flags.target,
      ...fields(flags),
    });
    printResult(created, flags, renderObjective, io);
  });

  adminSubcommand(slo, 'list', "List an organization's objectives")
    .requiredOption('--org <organizationId>', 'the organization')
    .action(async (flags: AdminFlags & { org: string }) => {
      printResult(await listObjectives(connectionOf(flags), flags.org), flags, renderObjectives, io);
    });

  objectiveOptions(
    adminSubcommand(slo, 'update <objectiveId>', "Change an objective's fields; absent flags keep theirs"),
  )
    .option('--name <name>', 'a new name')
    .action(async (id: string, flags: ObjectiveFlags) => {
      const updated = await updateObjective(connectionOf(flags), {
        id,
        name: flags.name ?? null,
        indicator: (flags.indicator as (typeof ServiceLevelIndicatorValues)[number] | undefined) ?? null,
        target: flags.target ?? null,
        ...fields(flags),
      });
      printResult(updated, flags, renderObjective, io);
    });

  adminSubcommand(
    slo,
    'delete <objectiveId>',
    'Delete an objective and the SLO_BURN rules that watch it',
  ).action(async (id: string, flags: AdminFlags) => {
    printResult(await deleteObjective(connectionOf(flags), id), flags, renderDeleted, io);
  });

  adminSubcommand(
    slo,
    'rules',
    "Print Prometheus recording and alerting rules for the objectives, over wfapi's /metrics series",
  )
    .option('--org <organizationId>', 'only this organization (default: every organization)')
    .action(async (flags: AdminFlags & { org?: string }) => {
      writeText(io, (await prometheusRules(connectionOf(flags), flags.org)).trimEnd());
    });

  withConnectionOptions(
    slo
      .command('status')
      .description("The API key's organization's objectives: attainment, error budget, burn rates and status")
      .option('--workflow <workflowUUID>', "only this workflow's objectives"),
  ).action(
    withClient(
      async (client, options: ConnectionOptions & { workflow?: string }) => {
        const { data } = await client.serviceLevels({ workflowUUID: options.workflow ?? null });
        if (options.json) writeJson(io, data);
        else writeText(io, renderStatus(data, stdoutPalette(io)));
      },
      (options) => options,
    ),
  );
}
