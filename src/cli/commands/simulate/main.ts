import type { Writable } from 'node:stream';
import type { IngestTarget } from '../../../client/ingest-client.js';
import type { IngestRecord } from '../../../ingest/records.js';
import { DAY, parseTime } from '../../../lib/time.js';
import { normalizeUuid } from '../../../lib/uuid.js';
import {
  createWorld,
  DETAILS,
  type Detail,
  emptyCounts,
  liveBatches,
  organizationProfile,
  type RecordCounts,
  recordsBetween,
  type SimulationPlan,
} from '../../../simulate/index.js';
import { adminEndpoint } from '../../admin-client.js';
import { DEFAULT_URL } from '../../client-options.js';
import { CliError, EXIT } from '../../exit-codes.js';
import { upload, write } from './output.js';
import { type CreatedTenant, createTenant } from './tenant.js';

export interface SimulateFlags {
  seed: string;
  days: string;
  workflows: string;
  executions: string;
  until?: string | undefined;
  org?: string | undefined;
  /** The older name of --org, still accepted. */
  organizationId?: string | undefined;
  createOrg?: boolean | undefined;
  url?: string | undefined;
  detail: string;
  out?: string | undefined;
  to?: string | undefined;
  token?: string | undefined;
  adminToken?: string | undefined;
  live?: boolean | undefined;
}

export interface SimulateSettings {
  readonly seed: string;
  readonly days: number;
  readonly workflows: number;
  readonly executions: number;
  readonly until: number;
  /** Absent: created on a server (see `createOn`), or else derived from the seed. */
  readonly organizationId: string | undefined;
  /**
   * The server whose admin interface creates the organization, a ROOT member with deploy access
   * and an API key before anything is generated: `--create-org`, or `--to` with an admin token
   * and no `--org`.
   */
  readonly createOn: { readonly url: string; readonly adminToken: string } | undefined;
  readonly detail: Detail;
  readonly out: string | undefined;
  readonly to: IngestTarget | undefined;
  readonly live: boolean;
}

export interface SimulateSummary {
  organizationId: string;
  /** The organization, member and key created on the target, when one was. */
  tenant: CreatedTenant | undefined;
  counts: RecordCounts;
  seconds: number;
  /** The target's answer, with --to. */
  accepted: number | undefined;
  rejected: Array<{ line: number; error: string }>;
  rejectedCount: number;
}

export interface SimulateIo {
  readonly stdout: Writable;
  readonly signal: AbortSignal;
  /** Called every few thousand records with the counts so far. */
  onProgress?(counts: RecordCounts): void;
  /** One-line notices for the operator (the organization used, retries). */
  onNotice?(text: string): void;
}

/** Records per batch handed to the writer or the upload. */
const BATCH_RECORDS = 2000;
/** The earliest history start that keeps every registration (up to 90 days earlier) after 1970. */
const EARLIEST_START = 100 * DAY;

function usage(message: string): never {
  throw new CliError(message, EXIT.USAGE);
}

function numberFlag(text: string, name: string, min: number, max: number, integer: boolean): number {
  const value = Number(text.replace(/_/g, ''));
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    usage(`${name} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

/** Checks every flag before anything is generated; a problem is a usage error. */
export function simulateSettings(flags: SimulateFlags, now = Date.now()): SimulateSettings {
  if (flags.seed === '') usage('--seed must not be empty');
  const days = numberFlag(flags.days, '--days', 0.001, 3650, false);
  const until = flags.until === undefined ? now : (parseTime(flags.until)?.getTime() ?? NaN);
  if (Number.isNaN(until))
    usage(`--until must be an RFC 3339 time such as 2026-03-01T00:00:00Z, got "${flags.until}"`);
  if (until > now + 60_000) usage('--until must not be in the future');
  if (until - days * DAY < EARLIEST_START) usage('--until minus --days must be after 1970-04-11');
  if (flags.org !== undefined && flags.organizationId !== undefined && flags.org !== flags.organizationId)
    usage('--org and --organization-id name two organizations; pass one');
  const orgFlag = flags.org ?? flags.organizationId;
  const organizationId =
    orgFlag === undefined
      ? undefined
      : (normalizeUuid(orgFlag) ?? usage('--org must be an organization id (a uuid)'));
  if (organizationId !== undefined && flags.createOrg) usage('--org and --create-org exclude each other');
  if (!(DETAILS as readonly string[]).includes(flags.detail))
    usage(`--detail must be one of ${DETAILS.join(', ')}`);
  if (flags.out !== undefined && flags.to !== undefined) usage('--out and --to exclude each other');
  let to: IngestTarget | undefined;
  if (flags.to !== undefined) {
    if (!/^https?:\/\/[^/]/.test(flags.to)) usage(`--to must be an http(s) URL, got "${flags.to}"`);
    if (!flags.token) usage('--to needs the ingest token: --token or WFAPI_INGEST_TOKEN');
    to = { url: flags.to, token: flags.token };
  }
  let createOn: SimulateSettings['createOn'];
  if (flags.createOrg || (to !== undefined && organizationId === undefined)) {
    const url = to?.url ?? flags.url ?? DEFAULT_URL;
    if (!flags.adminToken) {
      usage(
        flags.createOrg
          ? '--create-org needs the admin token: --admin-token or WFAPI_ADMIN_TOKEN'
          : '--to needs the organization the records belong to: --org of an existing one (`wfapi orgs list`), ' +
              'or --admin-token (WFAPI_ADMIN_TOKEN) to create one',
      );
    }
    if (!adminEndpoint(url)) usage(`--url must be an http(s) URL, got "${url}"`);
    createOn = { url, adminToken: flags.adminToken };
  }
  return {
    seed: flags.seed,
    days,
    workflows: numberFlag(flags.workflows, '--workflows', 1, 10_000, true),
    executions: numberFlag(flags.executions, '--executions', 0, 1_000_000_000, true),
    until,
    organizationId,
    createOn,
    detail: flags.detail as Detail,
    out: flags.out,
    to,
    live: flags.live === true,
  };
}

/**
 * Generates the history up to `until` (and then, with `live`, what happens as time passes)
 * and writes it as NDJSON to standard output, a file, or a server's ingestion endpoint.
 */
export async function simulateMain(settings: SimulateSettings, io: SimulateIo): Promise<SimulateSummary> {
  const started = performance.now();
  const profile = organizationProfile(settings.seed);
  let tenant: CreatedTenant | undefined;
  if (settings.createOn) {
    tenant = await createTenant(settings.createOn.url, settings.createOn.adminToken, profile);
    io.onNotice?.(`created organization "${tenant.displayName}" (${tenant.organizationId})`);
  }
  const organizationId = settings.organizationId ?? tenant?.organizationId ?? profile.defaultId;
  if (settings.organizationId === undefined && !tenant) {
    io.onNotice?.(
      `records belong to organization ${organizationId} (derived from the seed), which a server rejects ` +
        'unless it exists: pass --org <id> of an existing organization (`wfapi orgs list`) or --create-org',
    );
  }
  const plan: SimulationPlan = {
    seed: settings.seed,
    organizationId,
    workflows: settings.workflows,
    start: settings.until - settings.days * DAY,
    days: settings.days,
    executions: settings.executions,
  };
  const world = createWorld(plan);
  const counts = emptyCounts();
  const detail = () => settings.detail;
  const history = async function* (): AsyncGenerator<readonly IngestRecord[]> {
    let batch: IngestRecord[] = [];
    for (const record of recordsBetween(world, Number.NEGATIVE_INFINITY, settings.until, { detail })) {
      batch.push(record);
      if (batch.length >= BATCH_RECORDS) {
        yield batch;
        batch = [];
        if (io.signal.aborted) return;
      }
    }
    if (batch.length > 0) yield batch;
  };
  const live = async function* (): AsyncGenerator<readonly IngestRecord[]> {
    if (!settings.live || io.signal.aborted) return;
    for await (const batch of liveBatches(world, settings.until, { signal: io.signal, detail })) {
      if (batch.records.length > 0) yield batch.records;
    }
  };
  const summary: SimulateSummary = {
    organizationId,
    tenant,
    counts,
    seconds: 0,
    accepted: undefined,
    rejected: [],
    rejectedCount: 0,
  };
  const counted = async function* (batches: AsyncIterable<readonly IngestRecord[]>) {
    for await (const records of batches) {
      for (const record of records) counts[record.type]++;
      io.onProgress?.(counts);
      yield records;
    }
  };
  if (settings.to) Object.assign(summary, await upload(settings.to, counted(history()), counted(live()), io));
  else await write(settings.out, counted(history()), counted(live()), io.stdout);
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}
