import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../../exit-codes.js';
import type { Interval } from './coverage.js';

/** The demo's own file in the data directory, beside the embedded database. */
export const STATE_FILE = 'wfapi-demo.json';

/** What makes later starts reuse the first start's data: the world's plan, ids, credentials and what is loaded. */
export interface DemoState {
  readonly seed: string;
  /** The simulated world (see SimulationPlan), fixed on the first start. */
  readonly start: number;
  readonly days: number;
  readonly workflows: number;
  readonly executions: number;
  /** Executions started before this get fewer log lines, which keeps the first start fast. */
  readonly fullDetailFrom: number;
  readonly organizationId: string;
  readonly memberId: string;
  apiKey: string;
  readonly adminToken: string;
  readonly ingestToken: string;
  loaded: Interval[];
}

interface StateFile {
  warning: string;
  version: 1;
  seed: string;
  plan: { start: string; days: number; workflows: number; executions: number; fullDetailFrom: string };
  organizationId: string;
  memberId: string;
  apiKey: string;
  adminToken: string;
  ingestToken: string;
  loaded: Array<[string, string]>;
}

const WARNING =
  'Demo credentials in clear: whoever reads this file can read the demo data and administer this server. ' +
  'Never use a demo data directory for real data.';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export function statePath(dataDir: string): string {
  return join(dataDir, STATE_FILE);
}

/** The saved state, or undefined on a first start. A damaged file is an error naming it. */
export function readState(dataDir: string): DemoState | undefined {
  const path = statePath(dataDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const file = JSON.parse(text) as StateFile;
    if (file.version !== 1) throw new Error(`unknown version ${file.version}`);
    const time = (iso: string) => {
      const ms = Date.parse(iso);
      if (Number.isNaN(ms)) throw new Error(`bad time "${iso}"`);
      return ms;
    };
    return {
      seed: file.seed,
      start: time(file.plan.start),
      days: file.plan.days,
      workflows: file.plan.workflows,
      executions: file.plan.executions,
      fullDetailFrom: time(file.plan.fullDetailFrom),
      organizationId: file.organizationId,
      memberId: file.memberId,
      apiKey: file.apiKey,
      adminToken: file.adminToken,
      ingestToken: file.ingestToken,
      loaded: file.loaded.map(([after, until]) => [time(after), time(until)] as const),
    };
  } catch (error) {
    throw new CliError(
      `${path} is damaged (${(error as Error).message}); delete the data directory to start the demo afresh`,
    );
  }
}

/** Replaces the file atomically (write, then rename), readable by its owner only. */
export function writeState(dataDir: string, state: DemoState): void {
  const iso = (ms: number) => new Date(ms).toISOString();
  const file: StateFile = {
    warning: WARNING,
    version: 1,
    seed: state.seed,
    plan: {
      start: iso(state.start),
      days: state.days,
      workflows: state.workflows,
      executions: state.executions,
      fullDetailFrom: iso(state.fullDetailFrom),
    },
    organizationId: state.organizationId,
    memberId: state.memberId,
    apiKey: state.apiKey,
    adminToken: state.adminToken,
    ingestToken: state.ingestToken,
    loaded: state.loaded.map(([after, until]) => [iso(after), iso(until)]),
  };
  const path = statePath(dataDir);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}
