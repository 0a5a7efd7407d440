import { formatDuration } from '../time-input.js';
import type { Palette, Style } from './colors.js';
import { wrapAfter } from './width.js';

export interface GanttTask {
  readonly label: string;
  /** Epoch milliseconds. */
  readonly start: number;
  /** Undefined while the task runs: its bar reaches the end of the chart. */
  readonly end: number | undefined;
  readonly style: Style;
  /** Text after the bar: duration, status, errors. */
  readonly note: string;
}

const DONE = '█';
const RUNNING = '▒';
const MAX_LABEL = 34;

/**
 * Tasks as horizontal bars on one shared time axis from the earliest start to the latest end,
 * `width` columns wide. Every task gets at least one column, so instant ones stay visible. Notes
 * wrap to fit `lineWidth` columns, under the notes column.
 */
export function renderGantt(
  tasks: readonly GanttTask[],
  p: Palette,
  width = 40,
  lineWidth: number | undefined = undefined,
): string {
  if (tasks.length === 0) return '';
  const origin = Math.min(...tasks.map((t) => t.start));
  const finish = Math.max(...tasks.flatMap((t) => (t.end === undefined ? [t.start] : [t.start, t.end])));
  const span = Math.max(1, finish - origin);
  const column = (time: number) => Math.round(((time - origin) / span) * width);
  const labels = tasks.map((t) =>
    t.label.length > MAX_LABEL ? `${t.label.slice(0, MAX_LABEL - 1)}…` : t.label,
  );
  const labelWidth = Math.max(...labels.map((label) => label.length));
  const rows = tasks.map((task, i) => {
    const from = Math.min(width - 1, column(task.start));
    const to = task.end === undefined ? width : Math.max(from + 1, column(task.end));
    const bar = (task.end === undefined ? RUNNING : DONE).repeat(to - from);
    const line = `${' '.repeat(from)}${p[task.style](bar)}${' '.repeat(width - to)}`;
    return wrapAfter(
      `${labels[i]!.padEnd(labelWidth)} ${p.dim('│')}${line}${p.dim('│')} `,
      task.note,
      lineWidth,
    );
  });
  const end = `+${formatDuration(span)}`;
  const axis = `${' '.repeat(labelWidth)}  0${' '.repeat(Math.max(1, width - end.length - 1))}${end}`;
  return [...rows, p.dim(axis)].join('\n');
}
