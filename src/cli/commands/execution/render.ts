import { type Palette, type Style, statusStyle } from '../../render/colors.js';
import { renderGantt } from '../../render/gantt.js';
import { renderFields } from '../../render/table.js';
import { elapsed, formatDuration, formatInstant } from '../../time-input.js';
import type { ExecutionReport } from './main.js';

const NODE_STYLES: readonly Style[] = ['cyan', 'magenta', 'blue', 'yellow', 'green'];

/** Summary, errors, capability timeline and interleaved logs: one execution at a glance. */
export function renderExecution({ execution: e, events, logs }: ExecutionReport, p: Palette): string {
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
    section('Errors', renderErrors(e.errors, p), p),
    section('Capability timeline', renderTimeline(events, p), p),
    section('Logs', renderLogs(e.startedAt, logs, p), p),
  ].join('\n');
}

function section(title: string, body: string, p: Palette): string {
  return `\n${p.bold(title)}\n${body}`;
}

type Errors = ExecutionReport['execution']['errors'];

function errorList(errors: Errors): string[] {
  return (errors ?? []).flatMap((x) => (x ? [`${x.error}${x.count > 1 ? ` ×${x.count}` : ''}`] : []));
}

function renderErrors(errors: Errors, p: Palette): string {
  const lines = errorList(errors);
  return lines.length ? lines.map((line) => `  ${p.red('✗')} ${line}`).join('\n') : p.dim('  none');
}

function renderTimeline(events: ExecutionReport['events'], p: Palette): string {
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
  return renderGantt(tasks, p)
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** One line per log line by time, each tagged with its node in that node's colour. */
function renderLogs(startedAt: string, logs: ExecutionReport['logs'], p: Palette): string {
  if (logs.length === 0) return p.dim('  no log lines');
  const nodes = [...new Set(logs.map((l) => l.nodeID))];
  const width = Math.max(...nodes.map((n) => n.length));
  const origin = Date.parse(startedAt);
  return logs
    .map((l) => {
      const style = NODE_STYLES[nodes.indexOf(l.nodeID) % NODE_STYLES.length]!;
      const offset = `+${formatDuration(Math.max(0, Date.parse(l.timestamp) - origin))}`;
      const clock = new Date(l.timestamp).toISOString().slice(11, 23);
      return `  ${p.dim(clock)} ${p.dim(offset.padStart(8))}  ${p[style](l.nodeID.padEnd(width))}  ${l.message}`;
    })
    .join('\n');
}
