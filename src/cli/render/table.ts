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

/** The last column keeps at least this many columns when a table is fitted to a width. */
const MIN_LAST = 20;

/**
 * Rows as aligned columns under a dim header; one line per row, no trailing spaces. With a
 * `width`, the last column (the free text: a message, a pattern) is cut so that lines fit it,
 * down to 20 columns.
 */
export function renderTable<Row>(
  rows: readonly Row[],
  columns: readonly Column<Row>[],
  p: Palette,
  width?: number,
): string {
  const cells = rows.map((row) => columns.map((column) => truncate(column.value(row), column.max)));
  const widthOf = (i: number) =>
    Math.max(visibleLength(columns[i]!.header), ...cells.map((line) => visibleLength(line[i]!)));
  const widths = columns.map((_, i) => widthOf(i));
  const last = columns.length - 1;
  const total = widths.reduce((sum, w) => sum + w, 0) + 2 * last;
  if (width !== undefined && total > width && last >= 0) {
    const room = Math.max(MIN_LAST, visibleLength(columns[last]!.header), widths[last]! - (total - width));
    for (const line of cells) line[last] = truncate(line[last]!, room);
    widths[last] = widthOf(last);
  }
  // The last column is not padded when left-aligned: nothing follows it, and a style (colour)
  // would keep the padding from being trimmed.
  const padded = (text: string, i: number) => {
    const align = columns[i]!.align ?? 'left';
    return i === last && align === 'left' ? text : pad(text, widths[i]!, align);
  };
  const line = (texts: readonly string[], style: (text: string, i: number) => string) =>
    texts
      .map((text, i) => style(padded(text, i), i))
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
export function countLine(shown: number, count: number, noun: string, nouns = `${noun}s`): string {
  const plural = count === 1 ? noun : nouns;
  return shown >= count
    ? `${count} ${plural}`
    : `showing ${shown} of ${count} ${plural} (raise --limit to see more)`;
}

/** A rate as a percentage: `12.5%`, with two decimals for a rate under 0.1% that is not zero. */
export function formatPercent(rate: number): string {
  return `${(rate * 100).toFixed(rate > 0 && rate < 0.001 ? 2 : 1)}%`;
}
