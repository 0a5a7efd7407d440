import type { Command } from 'commander';
import type { Client } from '../client/index.js';
import type { Palette } from './render/colors.js';
import { formatInstant, instantOption } from './time-input.js';
import { resolveWorkflow, type WorkflowRef } from './workflow-ref.js';

/** The options of the insight commands (errors, durations, capabilities, logs search). */
export interface ScopeOptions {
  workflow?: string;
  since?: Date;
  until?: Date;
}

/** What an insight command reads: one workflow or the whole organization, over [from, to]. */
export interface Scope {
  /** Null for the whole organization. */
  readonly workflow: WorkflowRef | null;
  readonly from: string;
  readonly to: string;
}

/** The API's own default window (the last 24 hours), made explicit so the header can name it. */
const DEFAULT_SINCE = '24h';

/** Adds `--workflow`, `--since` and `--until`, the same everywhere they appear. */
export function withScopeOptions(command: Command, what: string): Command {
  return command
    .option(
      '--workflow <workflow>',
      'only this workflow (uuid or exact name); default: the whole organization',
    )
    .option(
      '--since <when>',
      `${what} at or after: 24h, 7d, a date or a date-time (default: ${DEFAULT_SINCE})`,
      instantOption,
    )
    .option(
      '--until <when>',
      `${what} at or before: 1h, a date or a date-time (default: now)`,
      instantOption,
    );
}

/** The scope the options name; an unknown workflow ends the command (exit 4). */
export async function resolveScope(client: Client, options: ScopeOptions): Promise<Scope> {
  const workflow = options.workflow === undefined ? null : await resolveWorkflow(client, options.workflow);
  const to = options.until ?? instantOption('now');
  const from = options.since ?? instantOption(DEFAULT_SINCE);
  return { workflow, from: from.toISOString(), to: to.toISOString() };
}

/** `price-feed <uuid>  2026-03-01 00:00:00Z to 2026-03-02 00:00:00Z`, or `all workflows  ...`. */
export function scopeLine({ workflow, from, to }: Scope, p: Palette, extra = ''): string {
  const name = workflow ? `${p.bold(workflow.name)} ${p.dim(workflow.uuid)}` : p.bold('all workflows');
  return `${name}${extra}  ${p.dim(`${formatInstant(from)} to ${formatInstant(to)}`)}`;
}
