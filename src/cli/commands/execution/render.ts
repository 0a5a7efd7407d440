import { groupLogs } from '../../../present/log-groups.js';
import { type Palette, type Style, statusStyle } from '../../render/colors.js';
import { renderGantt } from '../../render/gantt.js';
import { shortNodeNames } from '../../render/node-names.js';
import { renderFields } from '../../render/table.js';
import { wrapAfter } from '../../render/width.js';
import { elapsed, formatDuration, formatInstant } from '../../time-input.js';
import type { ExecutionReport } from './main.js';

const NODE_STYLES: readonly Style[] = ['cyan', 'magenta', 'blue', 'yellow', 'green'];
/** Columns of the timeline's bars on a wide enough terminal (or without one). */
const GANTT_WIDTH = 40;

export interface RenderOptions {
  /** Columns to fit lines to (wrapping them); undefined never wraps. */
  readonly width: number | undefined;
  /** Show the same message from several nodes once per node instead of once with the node count. */
  readonly allNodes: boolean;
}

/** Summary, errors, capability timeline and interleaved logs: one execution at a glance. */
export function renderExecution(
  report: ExecutionReport,
  p: Palette,
  options: RenderOptions = { width: undefined, allNodes: false },
): string {
  const { execution: e, events, logs } = report;
  const status = p[statusStyle(e.status)](e.status);
  const classified =
    e.classifiedStatus && e.classifiedStatus !== e.status ? ` ${p.dim(`(${e.classifiedStatus})`)}` : '';
  const summary = renderFields(
    [
      ['workflow', `${p.bold(e.workflowName)} ${p.dim(e.workflowUUID)}`],
      ['id', e.id],
      ['started', formatInstant(e.startedAt)],
      [
        'finished',
        e.finishedAt ? `${formatInstant(e.finishedAt)}  (${elapsed(e.startedAt, e.finishedAt)})` : '',
      ],
      ['credit used', e.creditUsed ?? ''],
      ['in TEE', e.executedInTee === null ? '' : e.executedInTee ? 'yes' : 'no'],
    ],
    p,
  );
  return [
    `${p.bold('Execution')} ${e.uuid}  ${status}${classified}`,
    summary,
    section('Errors', renderErrors(report.errors, p, options.width), p),
    section('Capability timeline', renderTimeline(events, p, options.width), p),
    section('Logs', renderLogs(e.startedAt, logs, p, options), p),
  ].join('\n');
}

function section(title: string, body: string, p: Palette): string {
  return `\n${p.bold(title)}\n${body}`;
}

type Errors = ExecutionReport['execution']['errors'];

/** An error with the number of nodes that reported it (the error's `count`), when more than one. */
function describeError(x: { readonly error: string; readonly count: number }): string {
  return `${x.error}${x.count > 1 ? ` (reported by ${x.count} nodes)` : ''}`;
}

function errorList(errors: Errors): string[] {
  return (errors ?? []).flatMap((x) => (x ? [describeError(x)] : []));
}

/**
 * Every error, the execution's own then its calls' (named by capability), each after the
 * fingerprint of its group, the key of `wfapi errors` and `wfapi executions --fingerprint`.
 */
function renderErrors(errors: ExecutionReport['errors'], p: Palette, width: number | undefined): string {
  if (errors.length === 0) return p.dim('  none');
  const lines = errors.map((x) => {
    const where = x.capabilityID ? `${p.dim(`${x.capabilityID}:`)} ` : '';
    return wrapAfter(`  ${p.red('✗')} ${p.dim(x.fingerprint)}  `, `${where}${describeError(x)}`, width);
  });
  const hint =
    'fingerprint: the error group (`wfapi errors`); `wfapi executions --fingerprint <it>` lists its executions';
  return [...lines, p.dim(wrapAfter('  ', hint, width))].join('\n');
}

function renderTimeline(events: ExecutionReport['events'], p: Palette, width: number | undefined): string {
  if (events.length === 0) return p.dim('  no capability events');
  const tasks = events.map((event) => {
    const start = Date.parse(event.startedAt);
    const end = event.finishedAt ? Date.parse(event.finishedAt) : undefined;
    const errors = errorList(event.errors);
    const took = end === undefined ? 'running' : formatDuration(end - start);
    return {
      label: `${event.capabilityID}${event.method ? ` ${event.method}` : ''}`,
      start,
      end,
      style: statusStyle(event.status),
      note: `${took.padStart(7)}  ${p[statusStyle(event.status)](event.status)}${errors.length ? `  ${p.red(errors.join('; '))}` : ''}`,
    };
  });
  // On a narrow terminal the bars give way first (down to 10 columns), then the notes wrap.
  const labels = Math.max(...tasks.map((t) => Math.min(t.label.length, 34)));
  const bars = width === undefined ? GANTT_WIDTH : Math.max(10, Math.min(GANTT_WIDTH, width - labels - 30));
  return renderGantt(tasks, p, bars, width === undefined ? undefined : width - 2)
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/**
 * One line per log line by time, each tagged with its node in that node's colour; the same message
 * from several nodes is one line tagged with their number, unless `allNodes`.
 */
function renderLogs(
  startedAt: string,
  logs: ExecutionReport['logs'],
  p: Palette,
  { width, allNodes }: RenderOptions,
): string {
  if (logs.length === 0) return p.dim('  no log lines');
  const nodes = [...new Set(logs.map((l) => l.nodeID))];
  const names = shortNodeNames(nodes);
  const groups = groupLogs(logs, allNodes);
  const tagOf = (group: (typeof groups)[number]) =>
    group.nodes.length > 1 ? `${group.nodes.length} nodes` : names.get(group.first.nodeID)!;
  const tagWidth = Math.max(...groups.map((g) => tagOf(g).length));
  const origin = Date.parse(startedAt);
  const lines = groups.map((group) => {
    const l = group.first;
    const style = NODE_STYLES[nodes.indexOf(l.nodeID) % NODE_STYLES.length]!;
    const tag = tagOf(group).padEnd(tagWidth);
    const offset = `+${formatDuration(Math.max(0, Date.parse(l.timestamp) - origin))}`;
    const clock = new Date(l.timestamp).toISOString().slice(11, 23);
    const prefix = `  ${p.dim(clock)} ${p.dim(offset.padStart(8))}  ${group.nodes.length > 1 ? p.bold(tag) : p[style](tag)}  `;
    return wrapAfter(prefix, l.message, width);
  });
  if (groups.length < logs.length) {
    const note =
      `(${logs.length} lines from ${nodes.length} nodes; a message logged by several nodes is shown once ` +
      'with their number: --all-nodes shows every line)';
    lines.push(p.dim(wrapAfter('  ', note, width)));
  }
  return lines.join('\n');
}
