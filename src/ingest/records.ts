/**
 * The ingestion record format (contract section 3) and its validation. A line becomes either a
 * typed record or a reason it was rejected; nothing here touches the database.
 */

import type { ErrorCount } from '../db/tables.js';
import { parseTime } from '../lib/time.js';
import { normalizeUuid } from '../lib/uuid.js';
import {
  type WorkflowDeploymentStatus,
  WorkflowDeploymentStatusValues,
  type WorkflowExecutionClassifiedStatus,
  WorkflowExecutionClassifiedStatusValues,
  type WorkflowExecutionStatus,
  WorkflowExecutionStatusValues,
} from '../schema/schema-types.generated.js';

export interface WorkflowRecord {
  type: 'workflow';
  organizationId: string;
  uuid: string;
  workflowId: string;
  name: string;
  ownerAddress: string;
  status: WorkflowDeploymentStatus;
  registeredAt: Date;
  workflowSource: string;
}

export interface DeploymentRecord {
  type: 'deployment';
  organizationId: string;
  uuid: string;
  workflowUUID: string;
  status: WorkflowDeploymentStatus;
  deployedAt: Date;
  txHash: string | null;
  errorMessage: string | null;
  binaryURL: string | null;
  configURL: string | null;
}

export interface ExecutionRecord {
  type: 'execution';
  organizationId: string;
  uuid: string;
  id: string;
  workflowUUID: string;
  status: WorkflowExecutionStatus;
  classifiedStatus: WorkflowExecutionClassifiedStatus | null;
  startedAt: Date;
  finishedAt: Date | null;
  executedInTee: boolean | null;
  errors: ErrorCount[] | null;
  /** Decimal text, exactly as sent (numbers are converted with their shortest representation). */
  creditUsed: string | null;
}

export interface LogRecord {
  type: 'log';
  organizationId: string;
  workflowExecutionUUID: string;
  nodeID: string;
  message: string;
  timestamp: Date;
}

export interface EventRecord {
  type: 'event';
  organizationId: string;
  workflowExecutionUUID: string;
  capabilityID: string;
  status: string;
  method: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  errors: ErrorCount[] | null;
}

export type IngestRecord = WorkflowRecord | DeploymentRecord | ExecutionRecord | LogRecord | EventRecord;
export type RecordType = IngestRecord['type'];
export const RECORD_TYPES: readonly RecordType[] = ['workflow', 'deployment', 'execution', 'log', 'event'];

export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['SUCCESS', 'FAILURE']);

export class RecordError extends Error {
  override name = 'RecordError';
}

const MAX_TEXT = 10_000;
const MAX_MESSAGE = 100_000;
const DECIMAL = /^(?:0|[1-9]\d{0,30})(?:\.\d{1,18})?$/;
/** A UTF-16 surrogate not paired with its other half: not a Unicode character, not storable as UTF-8. */
const LONE_SURROGATE = /\p{Cs}/u;

type Raw = Record<string, unknown>;

function fail(message: string): never {
  throw new RecordError(message);
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000, and a lone surrogate has no UTF-8 form: such a
 * string would fail (or be silently altered) in the database, so it is refused here, per line.
 */
function storable(value: string, field: string, max: number): string {
  if (value.length > max) fail(`${field} must be at most ${max} characters`);
  if (value.includes('\u0000')) fail(`${field} must not contain the character U+0000`);
  if (LONE_SURROGATE.test(value)) fail(`${field} must be valid Unicode (it has an unpaired surrogate)`);
  return value;
}

function text(raw: Raw, field: string, max = MAX_TEXT): string {
  const value = raw[field];
  if (value === undefined || value === null) fail(`${field} is required`);
  if (typeof value !== 'string') fail(`${field} must be a string`);
  if (value.length === 0) fail(`${field} must not be empty`);
  return storable(value, field, max);
}

function optionalText(raw: Raw, field: string, max = MAX_TEXT): string | null {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') fail(`${field} must be a string`);
  return storable(value, field, max);
}

function uuid(raw: Raw, field: string): string {
  return normalizeUuid(text(raw, field, 64)) ?? fail(`${field} must be a uuid`);
}

/**
 * The instants a record's times may take. The stored data and the code after it hold only
 * plausible times: a time far in the future lands in a month partition nobody maintains and
 * broke partition maintenance (year 9999 has no next month PostgreSQL can name), and windows and
 * rollups treat the Unix epoch as their open lower bound.
 */
export interface TimeBounds {
  /** The earliest instant accepted (ms). */
  readonly earliest: number;
  /** The latest instant accepted (ms). */
  readonly latest: number;
}

/** No record may be dated before this instant: 2000-01-01T00:00:00Z. */
export const EARLIEST_RECORD_TIME = Date.UTC(2000, 0, 1);
/** How far past the server's clock a record may be dated: a day, for producers whose clocks run ahead. */
export const MAX_FUTURE_MS = 86_400_000;
/** An error's `count` is at most this (PostgreSQL's integer, GraphQL's Int). */
export const MAX_ERROR_COUNT = 2 ** 31 - 1;

/** What ingestion accepts at the instant `now` (ms): from 2000-01-01 to a day after `now`. */
export const ingestTimeBounds = (now: number): TimeBounds => ({
  earliest: EARLIEST_RECORD_TIME,
  latest: now + MAX_FUTURE_MS,
});

function time(raw: Raw, field: string, bounds: TimeBounds): Date {
  const value = parseTime(text(raw, field, 64)) ?? fail(`${field} must be an RFC 3339 time with an offset`);
  if (value.getTime() < bounds.earliest) {
    fail(`${field} must not be before ${new Date(bounds.earliest).toISOString()}`);
  }
  if (value.getTime() > bounds.latest) {
    fail(
      `${field} must not be more than a day past the server's clock (${new Date(bounds.latest).toISOString()})`,
    );
  }
  return value;
}

function optionalTime(raw: Raw, field: string, bounds: TimeBounds): Date | null {
  return raw[field] === undefined || raw[field] === null ? null : time(raw, field, bounds);
}

function oneOf<T extends string>(raw: Raw, field: string, values: readonly T[]): T {
  const value = text(raw, field, 64);
  if (!(values as readonly string[]).includes(value)) fail(`${field} must be one of ${values.join(', ')}`);
  return value as T;
}

function optionalOneOf<T extends string>(raw: Raw, field: string, values: readonly T[]): T | null {
  return raw[field] === undefined || raw[field] === null ? null : oneOf(raw, field, values);
}

function optionalBoolean(raw: Raw, field: string): boolean | null {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') fail(`${field} must be a boolean`);
  return value;
}

function errorCounts(raw: Raw, field: string): ErrorCount[] | null {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) fail(`${field} must be an array of {error, count}`);
  if (value.length > 1000) fail(`${field} must have at most 1000 entries`);
  return value.map((item, index) => {
    if (!item || typeof item !== 'object' || Array.isArray(item))
      fail(`${field}[${index}] must be an object`);
    const entry = item as Raw;
    if (typeof entry.error !== 'string') fail(`${field}[${index}].error must be a string`);
    storable(entry.error, `${field}[${index}].error`, MAX_TEXT);
    if (!Number.isSafeInteger(entry.count) || (entry.count as number) < 0) {
      fail(`${field}[${index}].count must be a non-negative integer`);
    }
    if ((entry.count as number) > MAX_ERROR_COUNT) {
      fail(`${field}[${index}].count must be at most ${MAX_ERROR_COUNT}`);
    }
    return { error: entry.error, count: entry.count as number };
  });
}

function credit(raw: Raw, field: string): string | null {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  let textValue: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) fail(`${field} must be a non-negative decimal`);
    textValue = value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 18 });
  } else if (typeof value === 'string') {
    textValue = value;
  } else {
    fail(`${field} must be a decimal string or number`);
  }
  if (!DECIMAL.test(textValue)) fail(`${field} must be a non-negative decimal such as "12.5"`);
  return textValue;
}

/** `*` stands for "any level" in the error-group rollups, so no capability may be called that. */
function capabilityId(raw: Raw): string {
  const value = text(raw, 'capabilityID', 256);
  if (value === '*') fail('capabilityID must not be "*" (reserved)');
  return value;
}

function unknownType(type: string): never {
  fail(`unknown type "${type.slice(0, 40)}"; expected one of ${RECORD_TYPES.join(', ')}`);
}

/**
 * Validates one parsed NDJSON value; throws RecordError with the reason when it is not a record.
 * Its times must lie within `bounds`: by default what ingestion accepts now.
 */
export function parseRecord(value: unknown, bounds: TimeBounds = ingestTimeBounds(Date.now())): IngestRecord {
  if (!value || typeof value !== 'object' || Array.isArray(value)) fail('a record must be a JSON object');
  const raw = value as Raw;
  const type = raw.type;
  if (typeof type !== 'string') fail('type is required');
  if (!(RECORD_TYPES as readonly string[]).includes(type)) unknownType(type);
  const organizationId = uuid(raw, 'organizationId');
  switch (type) {
    case 'workflow':
      return {
        type,
        organizationId,
        uuid: uuid(raw, 'uuid'),
        workflowId: text(raw, 'workflowId', 256),
        name: text(raw, 'name', 1000),
        ownerAddress: text(raw, 'ownerAddress', 256),
        status: oneOf(raw, 'status', WorkflowDeploymentStatusValues),
        registeredAt: time(raw, 'registeredAt', bounds),
        workflowSource: optionalText(raw, 'workflowSource') ?? '',
      };
    case 'deployment':
      return {
        type,
        organizationId,
        uuid: uuid(raw, 'uuid'),
        workflowUUID: uuid(raw, 'workflowUUID'),
        status: oneOf(raw, 'status', WorkflowDeploymentStatusValues),
        deployedAt: time(raw, 'deployedAt', bounds),
        txHash: optionalText(raw, 'txHash', 256),
        errorMessage: optionalText(raw, 'errorMessage'),
        binaryURL: optionalText(raw, 'binaryURL', 2048),
        configURL: optionalText(raw, 'configURL', 2048),
      };
    case 'execution':
      return {
        type,
        organizationId,
        uuid: uuid(raw, 'uuid'),
        id: text(raw, 'id', 256),
        workflowUUID: uuid(raw, 'workflowUUID'),
        status: oneOf(raw, 'status', WorkflowExecutionStatusValues),
        classifiedStatus: optionalOneOf(raw, 'classifiedStatus', WorkflowExecutionClassifiedStatusValues),
        startedAt: time(raw, 'startedAt', bounds),
        finishedAt: optionalTime(raw, 'finishedAt', bounds),
        executedInTee: optionalBoolean(raw, 'executedInTee'),
        errors: errorCounts(raw, 'errors'),
        creditUsed: credit(raw, 'creditUsed'),
      };
    case 'log':
      return {
        type,
        organizationId,
        workflowExecutionUUID: uuid(raw, 'workflowExecutionUUID'),
        nodeID: text(raw, 'nodeID', 256),
        message: optionalText(raw, 'message', MAX_MESSAGE) ?? fail('message is required'),
        timestamp: time(raw, 'timestamp', bounds),
      };
    case 'event':
      return {
        type,
        organizationId,
        workflowExecutionUUID: uuid(raw, 'workflowExecutionUUID'),
        capabilityID: capabilityId(raw),
        status: text(raw, 'status', 64),
        method: optionalText(raw, 'method', 256),
        startedAt: time(raw, 'startedAt', bounds),
        finishedAt: optionalTime(raw, 'finishedAt', bounds),
        errors: errorCounts(raw, 'errors'),
      };
    default:
      unknownType(type);
  }
}
