import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { WorkflowExecutionStatusValues } from '../../../client/index.js';
import { CliError, EXIT } from '../../exit-codes.js';
import type { ExportFilter, ExportWindow } from './window.js';

export const EXPORT_KINDS = ['executions', 'logs', 'events'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
/** What a state file may record: the kinds of `wfapi export`, and `traces` of `wfapi export traces`. */
export const STATE_KINDS = [...EXPORT_KINDS, 'traces'] as const;
export type StateKind = (typeof STATE_KINDS)[number];

/**
 * Where an incremental export ended. Everything of `kind` and `filter` whose execution started
 * at or before `watermark` was written; `boundary` holds the uuids of the executions that
 * started exactly at the watermark, so the next run can start at it inclusively and skip them.
 */
export interface ExportState {
  readonly version: 1;
  readonly kind: StateKind;
  readonly filter: ExportFilter;
  readonly watermark: string;
  readonly boundary: readonly string[];
  readonly updatedAt: string;
}

function invalid(path: string, reason: string): CliError {
  return new CliError(`--state ${path}: ${reason}`, EXIT.USAGE);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** The state saved by the previous run, or undefined before the first one. */
export async function readState(path: string): Promise<ExportState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw invalid(path, `cannot read it (${(error as Error).message})`);
  }
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid(path, 'not JSON; is it a wfapi export state file?');
  }
  const filter = (raw?.filter ?? {}) as Record<string, unknown>;
  const statuses = filter.status;
  const valid =
    raw?.version === 1 &&
    (STATE_KINDS as readonly unknown[]).includes(raw.kind) &&
    typeof raw.watermark === 'string' &&
    !Number.isNaN(Date.parse(raw.watermark)) &&
    isStringArray(raw.boundary) &&
    (filter.workflowUuid === undefined || typeof filter.workflowUuid === 'string') &&
    (statuses === undefined ||
      (isStringArray(statuses) &&
        statuses.every((s) => (WorkflowExecutionStatusValues as readonly string[]).includes(s))));
  if (!valid) throw invalid(path, 'not a wfapi export state file (version 1)');
  return raw as unknown as ExportState;
}

/**
 * Makes the state file's folder, and its missing parents, readable only by the user (an
 * existing folder is left as it is): checked before a run sends anything, not after.
 */
async function makeFolder(path: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw invalid(path, `cannot create its folder (${(error as Error).message})`);
  }
}

/** Replaces the state file atomically: a crash leaves the old state or the new one, never half of one. */
export async function writeState(path: string, state: ExportState): Promise<void> {
  await makeFolder(path);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temporary, path);
}

/**
 * Where an incremental export keeps its state: a `--state` file, or memory for a `--follow`
 * run without one (it then starts over when restarted). `label` names it in messages.
 */
export interface StateStore {
  readonly label: string;
  read(): Promise<ExportState | undefined>;
  write(state: ExportState): Promise<void>;
}

export function fileStateStore(path: string): StateStore {
  return {
    label: path,
    read: async () => {
      await makeFolder(path);
      return readState(path);
    },
    write: (state) => writeState(path, state),
  };
}

export function memoryStateStore(): StateStore {
  let saved: ExportState | undefined;
  return {
    label: '(memory)',
    read: async () => saved,
    write: async (state) => {
      saved = state;
    },
  };
}

function sameFilter(a: ExportFilter, b: ExportFilter): boolean {
  const statuses = (f: ExportFilter) => [...(f.status ?? [])].sort().join(',');
  return (a.workflowUuid ?? '') === (b.workflowUuid ?? '') && statuses(a) === statuses(b);
}

export interface WindowRequest {
  readonly kind: StateKind;
  readonly filter: ExportFilter;
  readonly since: Date | undefined;
  readonly until: Date | undefined;
  /** Incremental exports stop this long before now, so that late records and running executions settle. */
  readonly lagMs: number;
  readonly now: number;
}

/**
 * The window of this run. Without a state: [since, until]. With one (incremental): from the
 * saved watermark (or `since` on the first run) to the earlier of `until` and now minus the lag,
 * which is empty while the watermark is already there.
 */
export function planWindow(
  path: string | undefined,
  state: ExportState | undefined,
  request: WindowRequest,
): ExportWindow {
  if (path === undefined) return { from: request.since, to: request.until, skip: new Set() };
  if (state && state.kind !== request.kind) {
    throw invalid(path, `it records an export of ${state.kind}, not ${request.kind}; use another state file`);
  }
  if (state && !sameFilter(state.filter, request.filter)) {
    throw invalid(path, 'it was made with other --workflow or --status filters; use another state file');
  }
  const settled = Math.floor((request.now - request.lagMs) / 1000) * 1000;
  const to = new Date(Math.min(settled, request.until?.getTime() ?? settled));
  const from = state ? new Date(state.watermark) : request.since;
  return { from, to, skip: new Set(state?.boundary ?? []) };
}

/** Whether the window ends before it starts: nothing has settled since the last run. */
export function isEmptyWindow(window: ExportWindow): boolean {
  return window.from !== undefined && window.to !== undefined && window.to.getTime() < window.from.getTime();
}

/**
 * The state after a complete run over `window`: its end is the new watermark, and the boundary
 * holds every uuid already written at that instant, including those skipped when the window
 * was a single instant.
 */
export function nextState(
  request: WindowRequest,
  window: ExportWindow,
  atEnd: readonly string[],
): ExportState {
  const to = window.to!;
  const carried = window.from?.getTime() === to.getTime() ? [...window.skip] : [];
  return {
    version: 1,
    kind: request.kind,
    filter: request.filter,
    watermark: to.toISOString(),
    boundary: [...new Set([...carried, ...atEnd])],
    updatedAt: new Date(request.now).toISOString(),
  };
}
