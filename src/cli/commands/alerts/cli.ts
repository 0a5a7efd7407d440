import { type Command, Option } from 'commander';
import {
  AlertConditionValues,
  AlertTargetValues,
  WebhookDeliveryStatusValues,
} from '../../../admin/admin-types.generated.js';
import { type AdminFlags, adminSubcommand, connectionOf, printResult } from '../../admin-command.js';
import type { CliIo } from '../../io.js';
import { integer, number } from '../../option-parsers.js';
import {
  createAlertRule,
  deleteAlertRule,
  listAlertRules,
  listDeliveries,
  redeliver,
  renderCreatedRule,
  renderDeleted,
  renderDeliveries,
  renderRedelivered,
  renderRule,
  renderRules,
  updateAlertRule,
} from './main.js';

interface RuleFlags extends AdminFlags {
  name?: string;
  workflow?: string;
  classifiedStatus?: string;
  threshold?: number;
  window?: string;
  minExecutions?: number;
  for?: string;
  metric?: string;
  sensitivity?: number;
  targetUrl?: string;
  severity?: string;
  objective?: string;
  factor?: number;
  minDuration?: string;
}

/** The flags of a rule's parameters, shared by create and update. */
function ruleOptions(command: Command): Command {
  return command
    .option('--workflow <workflowUUID>', 'only this workflow (required by NO_EXECUTIONS)')
    .option('--classified-status <status>', 'EXECUTION_FAILED: only this classifiedStatus')
    .option('--threshold <rate>', 'FAILURE_RATE: the share of failures (0..1) that fires', number)
    .option('--window <duration>', 'FAILURE_RATE: the window, e.g. 15m')
    .option('--min-executions <n>', 'FAILURE_RATE: fewer finished executions never fire (default 1)', integer)
    .option('--for <duration>', 'NO_EXECUTIONS: the silence that fires, e.g. 30m')
    .option('--metric <metric>', 'ANOMALY: EXECUTIONS, FAILURE_RATE or DURATION_P95')
    .option('--sensitivity <k>', 'ANOMALY: the band width in spreads, 1 to 10 (default 3)', number)
    .option('--severity <severity>', 'the severity label (default warning)')
    .option(
      '--factor <n>',
      "EXECUTION_STUCK: the multiple of the workflow's p95 past which it is stuck (default 3)",
      number,
    )
    .option('--min-duration <duration>', 'EXECUTION_STUCK: the least time running before stuck (default 5m)');
}

const parameters = (flags: RuleFlags) => ({
  workflowUUID: flags.workflow ?? null,
  classifiedStatus: flags.classifiedStatus ?? null,
  threshold: flags.threshold ?? null,
  window: flags.window ?? null,
  minExecutions: flags.minExecutions ?? null,
  for: flags.for ?? null,
  metric: flags.metric?.toUpperCase() ?? null,
  sensitivity: flags.sensitivity ?? null,
  severity: flags.severity ?? null,
  factor: flags.factor ?? null,
  minDuration: flags.minDuration ?? null,
});

export function register(program: Command, io: CliIo): void {
  const alerts = program
    .command('alerts')
    .description(
      'Manage alert rules and their webhook deliveries through the admin interface of a running server',
    );

  ruleOptions(
    adminSubcommand(
      alerts,
      'create',
      'Create an alert rule; a webhook signing secret is printed once and never again',
    )
      .requiredOption('--org <organizationId>', 'the organization')
      .requiredOption('--name <name>', 'the rule name (the alertname label for Alertmanager)')
      .addOption(
        new Option('--condition <condition>', 'what fires it')
          .choices(AlertConditionValues)
          .makeOptionMandatory(),
      )
      .addOption(
        new Option('--target <target>', 'where it goes').choices(AlertTargetValues).default('WEBHOOK'),
      )
      .option('--objective <objectiveId>', 'SLO_BURN: the service level objective watched')
      .requiredOption(
        '--target-url <url>',
        'the receiver (WEBHOOK) or the Alertmanager base URL (ALERTMANAGER)',
      ),
  ).action(
    async (
      flags: RuleFlags & { org: string; name: string; condition: string; target: string; targetUrl: string },
    ) => {
      const created = await createAlertRule(connectionOf(flags), {
        organizationId: flags.org,
        name: flags.name,
        condition: flags.condition as (typeof AlertConditionValues)[number],
        target: flags.target as (typeof AlertTargetValues)[number],
        url: flags.targetUrl,
        serviceLevelObjectiveId: flags.objective ?? null,
        ...parameters(flags),
      });
      printResult(created, flags, renderCreatedRule, io);
    },
  );

  adminSubcommand(alerts, 'list', "List an organization's alert rules (never their secrets)")
    .requiredOption('--org <organizationId>', 'the organization')
    .action(async (flags: AdminFlags & { org: string }) => {
      printResult(await listAlertRules(connectionOf(flags), flags.org), flags, renderRules, io);
    });

  ruleOptions(
    adminSubcommand(alerts, 'update <ruleId>', "Change a rule's parameters; absent flags keep theirs"),
  )
    .option('--name <name>', 'a new name')
    .option('--target-url <url>', 'a new receiver or Alertmanager URL')
    .option('--enable', 'enable the rule (also after a 410 disabled it)')
    .option('--disable', 'disable the rule')
    .action(async (ruleId: string, flags: RuleFlags & { enable?: boolean; disable?: boolean }) => {
      const rule = await updateAlertRule(connectionOf(flags), {
        id: ruleId,
        name: flags.name ?? null,
        url: flags.targetUrl ?? null,
        enabled: flags.enable ? true : flags.disable ? false : null,
        ...parameters(flags),
      });
      printResult(rule, flags, renderRule, io);
    });

  adminSubcommand(alerts, 'delete <ruleId>', 'Delete a rule and its deliveries').action(
    async (ruleId: string, flags: AdminFlags) => {
      printResult(await deleteAlertRule(connectionOf(flags), ruleId), flags, renderDeleted, io);
    },
  );

  adminSubcommand(alerts, 'deliveries', "List an organization's deliveries, newest first")
    .requiredOption('--org <organizationId>', 'the organization')
    .option('--rule <ruleId>', 'only this rule')
    .addOption(new Option('--status <status>', 'only this status').choices(WebhookDeliveryStatusValues))
    .option('--limit <n>', 'at most this many (default 50)', integer)
    .action(async (flags: AdminFlags & { org: string; rule?: string; status?: string; limit?: number }) => {
      const deliveries = await listDeliveries(connectionOf(flags), {
        organizationId: flags.org,
        ruleId: flags.rule ?? null,
        status: (flags.status as (typeof WebhookDeliveryStatusValues)[number] | undefined) ?? null,
        limit: flags.limit ?? null,
      });
      printResult(deliveries, flags, renderDeliveries, io);
    });

  adminSubcommand(alerts, 'redeliver <deliveryId>', 'Send a delivery again, with the same webhook-id').action(
    async (deliveryId: string, flags: AdminFlags) => {
      printResult(await redeliver(connectionOf(flags), deliveryId), flags, renderRedelivered, io);
    },
  );
}
