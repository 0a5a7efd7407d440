/** SQL of alert rules and their deliveries (the outbox). Plain functions, the database handle first. */
import type { Queryable } from '../db/database.js';
import { type AlertRuleRow, alertRules, type WebhookDeliveryRow, webhookDeliveries } from '../db/tables.js';
import { sha256 } from '../lib/sha256.js';
import { dashedUuid } from '../lib/uuid.js';

export const RULE_COLUMNS = alertRules.columns.map(([name]) => name).join(', ');
export const DELIVERY_COLUMNS = webhookDeliveries.columns.map(([name]) => name).join(', ');

/** How long a delivery is retried before it is given up. */
export const GIVE_UP_MS = 24 * 60 * 60 * 1000;

export type NewRule = Omit<
  AlertRuleRow,
  'firing' | 'fired_at' | 'evaluated_at' | 'created_at' | 'updated_at' | 'slo_status'
>;

export async function insertRule(db: Queryable, rule: NewRule): Promise<AlertRuleRow> {
  const [row] = await db.query<AlertRuleRow>(
    `insert into alert_rules (id, organization_id, name, condition, workflow_uuid, classified_status, threshold,
       window_seconds, min_executions, for_seconds, target, url, secret_box, severity, enabled, disabled_reason,
       metric, sensitivity, service_level_objective_id, factor, min_duration_seconds)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
     returning ${RULE_COLUMNS}`,
    [
      rule.id,
      rule.organization_id,
      rule.name,
      rule.condition,
      rule.workflow_uuid,
      rule.classified_status,
      rule.threshold,
      rule.window_seconds,
      rule.min_executions,
      rule.for_seconds,
      rule.target,
      rule.url,
      rule.secret_box,
      rule.severity,
      rule.enabled,
      rule.disabled_reason,
      rule.metric,
      rule.sensitivity,
      rule.service_level_objective_id,
      rule.factor,
      rule.min_duration_seconds,
    ],
  );
  return row!;
}

export type RuleChanges = {
  -readonly [K in keyof Pick<
    AlertRuleRow,
    | 'name'
    | 'workflow_uuid'
    | 'classified_status'
    | 'threshold'
    | 'window_seconds'
    | 'min_executions'
    | 'for_seconds'
    | 'url'
    | 'severity'
    | 'enabled'
    | 'disabled_reason'
    | 'metric'
    | 'sensitivity'
    | 'factor'
    | 'min_duration_seconds'
  >]?: AlertRuleRow[K];
};

const CHANGEABLE = [
  'name',
  'workflow_uuid',
  'classified_status',
  'threshold',
  'window_seconds',
  'min_executions',
  'for_seconds',
  'url',
  'severity',
  'enabled',
  'disabled_reason',
  'metric',
  'sensitivity',
  'factor',
  'min_duration_seconds',
] as const satisfies ReadonlyArray<keyof RuleChanges>;

export async function updateRule(
  db: Queryable,
  id: string,
  changes: RuleChanges,
): Promise<AlertRuleRow | undefined> {
  const set = CHANGEABLE.filter((column) => changes[column] !== undefined);
  const [row] = await db.query<AlertRuleRow>(
    `update alert_rules set ${[...set.map((column, i) => `${column} = $${i + 2}`), 'updated_at = now()'].join(', ')}
     where id = $1 returning ${RULE_COLUMNS}`,
    [id, ...set.map((column) => changes[column])],
  );
  return row;
}

/** Rules the rule timer claims per transaction. */
const CLAIMED_PER_TRANSACTION = 100;

/**
 * The enabled rules of `conditions` due for evaluation at `now` (not evaluated for `evaluateMs`,
 * less 50 ms for the timer's own drift), least recently evaluated first, locked for this
 * transaction and skipped by any other's (`skip locked`): any number of instances may run the
 * rule timer (rule-timer.ts, verdict-rules.ts).
 */
export function claimDueRules(
  tx: Queryable,
  conditions: readonly string[],
  now: number,
  evaluateMs: number,
): Promise<AlertRuleRow[]> {
  return tx.query<AlertRuleRow>(
    `select ${RULE_COLUMNS} from alert_rules
     where enabled and condition = any($2::text[])
       and (evaluated_at is null or evaluated_at <= $1)
     order by evaluated_at nulls first limit ${CLAIMED_PER_TRANSACTION}
     for update skip locked`,
    [new Date(now - evaluateMs + 50), conditions],
  );
}

export async function findRule(db: Queryable, id: string): Promise<AlertRuleRow | undefined> {
  const [row] = await db.query<AlertRuleRow>(`select ${RULE_COLUMNS} from alert_rules where id = $1`, [id]);
  return row;
}

/** The rules with these ids, by id (a deleted one is absent): one read for a whole claim of deliveries. */
export async function findRules(db: Queryable, ids: readonly string[]): Promise<Map<string, AlertRuleRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<AlertRuleRow>(
    `select ${RULE_COLUMNS} from alert_rules where id = any($1::uuid[])`,
    [[...new Set(ids)]],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

export async function deleteRule(db: Queryable, id: string): Promise<AlertRuleRow | undefined> {
  const [row] = await db.query<AlertRuleRow>(
    `delete from alert_rules where id = $1 returning ${RULE_COLUMNS}`,
    [id],
  );
  return row;
}

export function listRules(db: Queryable, organizationId: string): Promise<AlertRuleRow[]> {
  return db.query<AlertRuleRow>(
    `select ${RULE_COLUMNS} from alert_rules where organization_id = $1 order by created_at, id`,
    [organizationId],
  );
}

/** The enabled rules of some organizations with one of the given conditions (ingestion's check). */
export function enabledRules(
  db: Queryable,
  organizationIds: readonly string[],
  conditions: readonly string[],
): Promise<AlertRuleRow[]> {
  return db.query<AlertRuleRow>(
    `select ${RULE_COLUMNS} from alert_rules
     where organization_id = any($1::uuid[]) and enabled and condition = any($2::text[])`,
    [organizationIds, conditions],
  );
}

export interface NewDelivery {
  readonly organizationId: string;
  readonly ruleId: string;
  /** At most one delivery per rule and key: the execution uuid, the fingerprint, the episode. */
  readonly eventKey: string;
  readonly type: string;
  readonly payload: Record<string, unknown>;
}

/**
 * A delivery's id, its `webhook-id`: derived from its rule and event key (an RFC 9562 version 8
 * uuid over their SHA-256), not drawn at random. A delivery queued again after its row was lost
 * (a crash took back a commit not yet flushed, whose delivery the worker had already sent, and
 * the client re-sent the batch) then reaches the receiver with the id it has seen.
 */
export function deliveryId(ruleId: string, eventKey: string): string {
  const bytes = sha256(`${ruleId}\n${eventKey}`).subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return dashedUuid(bytes.toString('hex'));
}

/**
 * Writes deliveries to the outbox, due now; one that exists for its rule and key is left as it
 * is (a re-sent record, a second evaluation). Returns how many were new.
 */
export async function queueDeliveries(db: Queryable, deliveries: readonly NewDelivery[]): Promise<number> {
  if (deliveries.length === 0) return 0;
  const rows = await db.query<{ id: string }>(
    `insert into webhook_deliveries (id, organization_id, rule_id, event_key, event_type, payload, status,
       next_attempt_at, give_up_at)
     select d.id, d.organization_id, d.rule_id, d.event_key, d.event_type, d.payload::jsonb, 'PENDING',
       now(), now() + make_interval(secs => $7 / 1000.0)
     from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[])
       as d(id, organization_id, rule_id, event_key, event_type, payload)
     on conflict (rule_id, event_key) do nothing
     returning id`,
    [
      deliveries.map((d) => deliveryId(d.ruleId, d.eventKey)),
      deliveries.map((d) => d.organizationId),
      deliveries.map((d) => d.ruleId),
      deliveries.map((d) => d.eventKey),
      deliveries.map((d) => d.type),
      deliveries.map((d) => JSON.stringify(d.payload)),
      GIVE_UP_MS,
    ],
  );
  return rows.length;
}

/**
 * Makes a firing alert's delivery (rule and key) due again when its last attempt is older than
 * `resendMs`, with retries of its own: an Alertmanager alert is posted again while it fires
 * (see rule-timer.ts), so that it ends on its own if wfapi goes away.
 */
export async function resendFiring(
  db: Queryable,
  ruleId: string,
  eventKey: string,
  resendMs: number,
): Promise<void> {
  await db.query(
    `update webhook_deliveries set status = 'PENDING', next_attempt_at = now(), attempts = 0,
       give_up_at = now() + make_interval(secs => $4 / 1000.0)
     where rule_id = $1 and event_key = $2 and status in ('DELIVERED', 'FAILED')
       and last_attempt_at < now() - make_interval(secs => $3 / 1000.0)`,
    [ruleId, eventKey, resendMs, GIVE_UP_MS],
  );
}

export function listDeliveries(
  db: Queryable,
  query: { organizationId: string; ruleId: string | null; status: string | null; limit: number },
): Promise<WebhookDeliveryRow[]> {
  return db.query<WebhookDeliveryRow>(
    `select ${DELIVERY_COLUMNS} from webhook_deliveries
     where organization_id = $1 and ($2::uuid is null or rule_id = $2) and ($3::text is null or status = $3)
     order by created_at desc, id desc limit $4`,
    [query.organizationId, query.ruleId, query.status, query.limit],
  );
}

/** Makes a delivery due now with a fresh 24 hours of retries, keeping its id (the webhook-id). */
export async function requeueDelivery(db: Queryable, id: string): Promise<WebhookDeliveryRow | undefined> {
  const [row] = await db.query<WebhookDeliveryRow>(
    `update webhook_deliveries set status = 'PENDING', next_attempt_at = now(),
       give_up_at = now() + make_interval(secs => $2 / 1000.0)
     where id = $1 returning ${DELIVERY_COLUMNS}`,
    [id, GIVE_UP_MS],
  );
  return row;
}

/**
 * Claims up to `limit` due deliveries for one attempt: their next attempt moves `leaseMs` ahead,
 * so another worker (or this one, after a crash) takes them again only once the lease has run out.
 * Due and leased by the database's clock, or by `at` when later: a worker given a clock of its own
 * (a test's) moves the outbox's time on, never back, so what the database deems due is due.
 */
export function claimDue(
  db: Queryable,
  limit: number,
  leaseMs: number,
  at: Date | null = null,
): Promise<WebhookDeliveryRow[]> {
  return db.query<WebhookDeliveryRow>(
    `update webhook_deliveries set next_attempt_at = greatest(now(), $3::timestamptz) + make_interval(secs => $2 / 1000.0)
     where id in (
       select id from webhook_deliveries
       where status = 'PENDING' and next_attempt_at <= greatest(now(), $3::timestamptz)
       order by next_attempt_at limit $1 for update skip locked)
     returning ${DELIVERY_COLUMNS}`,
    [limit, leaseMs, at],
  );
}

export interface AttemptOutcome {
  readonly status: 'PENDING' | 'DELIVERED' | 'FAILED';
  readonly responseStatus: number | null;
  readonly error: string | null;
  /** When PENDING: the delay before the next attempt. */
  readonly retryInMs: number;
}

/**
 * Records attempts' outcomes, one statement for all of them (the delivery worker writes the
 * outcomes that finished while its previous write was in flight together). Timed by the
 * database's clock, or by `at` when later (see claimDue).
 */
export async function recordAttempts(
  db: Queryable,
  attempts: ReadonlyArray<{ readonly id: string; readonly outcome: AttemptOutcome }>,
  at: Date | null = null,
): Promise<void> {
  if (attempts.length === 0) return;
  await db.query(
    `update webhook_deliveries d set status = o.status, attempts = d.attempts + 1,
       last_attempt_at = greatest(now(), $6::timestamptz),
       response_status = o.response_status, last_error = o.error,
       delivered_at = case when o.status = 'DELIVERED' then greatest(now(), $6::timestamptz) else d.delivered_at end,
       next_attempt_at = greatest(now(), $6::timestamptz) + make_interval(secs => o.retry_ms / 1000.0)
     from unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::float8[])
       as o(id, status, response_status, error, retry_ms)
     where d.id = o.id`,
    [
      attempts.map((a) => a.id),
      attempts.map((a) => a.outcome.status),
      attempts.map((a) => a.outcome.responseStatus),
      attempts.map((a) => a.outcome.error),
      attempts.map((a) => a.outcome.retryInMs),
      at,
    ],
  );
}

export async function disableRule(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query(
    `update alert_rules set enabled = false, disabled_reason = $2, updated_at = now() where id = $1`,
    [id, reason],
  );
}
