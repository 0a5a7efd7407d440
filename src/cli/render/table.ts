import { type Palette, visibleLength } from './colors.js';

export interface Column<Row> {
  readonly header: string;
  /** The cell's plain text. */
  readonly value: (row: Row) => string;
  /** Applied after padding and truncation, so colour never breaks alignment. */
  readonly style?: (text: string, row: Row) => string;
  readonly align?: 'left' | 'right';
  /** Longer text is cut with an ellipsis. */
  readonly max?: number;
}

function truncate(text: string, max: number | undefined): string {
  const chars = [...text.replace(/\s+/g, ' ')];
  return max !== undefined && chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

function pad(text: string, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - visibleLength(text)));
  return align === 'right' ? fill + text : text + fill;
}

/** Rows as aligned columns under a dim header; one line per row, no trailing spaces. */
export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[], p: Palette): string {
  const cells = rows.map((row) => columns.map((column) => truncate(column.value(row), column.max)));
  const widths = columns.map((column, i) =>
    Math.max(visibleLength(column.header), ...cells.map((line) => visibleLength(line[i]!))),
  );
  const line = (texts: readonly string[], style: (text: string, i: number) => string) =>
    texts
      .map((text, i) => style(pad(text, widths[i]!, columns[i]!.align ?? 'left'), i))
      .join('  ')
      .trimEnd();
  const header = line(
    columns.map((c) => c.header),
    (text) => p.dim(text),
  );
  const body = cells.map((texts, r) => line(texts, (text, i) => columns[i]!.style?.(text, rows[r]!) ?? text));
  return [header, ...body].join('\n');
}

/** Label/value pairs, labels aligned and dim; empty values are shown as a dim dash. */
export function renderFields(pairs: ReadonlyArray<readonly [string, string]>, p: Palette): string {
  const width = Math.max(...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${p.dim(label.padEnd(width))}  ${value || p.dim('-')}`).join('\n');
}

/** `3 workflows`, or `showing 50 of 230 executions (raise --limit to see more)`. */
export function countLine(shown: number, count: number, noun: string): string {
  const plural = count === 1 ? noun : `${noun}s`;
  return shown >= count
    ? `${count} ${plural}`
    : `showing ${shown} of ${count} ${plural} (raise --limit to see more)`;
}
