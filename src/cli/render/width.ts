import { visibleLength } from './colors.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Continuation lines keep at least this many columns for text, however deep their indent. */
const MIN_TEXT = 20;

/**
 * The width to fit human output to: COLUMNS when set (shells keep it up to date, and it lets a
 * pipe ask for a width), else the terminal's own, else none: text for pipes and files is never cut.
 */
export function outputWidth(stream: { isTTY?: boolean; columns?: number }, env: Env): number | undefined {
  const fromEnv = Number(env.COLUMNS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return stream.isTTY && stream.columns ? stream.columns : undefined;
}

/** Cuts a word without colour codes into pieces of at most `size` columns. */
function pieces(word: string, size: number): string[] {
  if (visibleLength(word) <= size || visibleLength(word) !== word.length) return [word];
  const chars = [...word];
  return Array.from({ length: Math.ceil(chars.length / size) }, (_, i) =>
    chars.slice(i * size, (i + 1) * size).join(''),
  );
}

/**
 * `line` wrapped at spaces to `width` columns (colour codes take none), continuation lines
 * indented by `indent` so that they line up under the text they continue. A word longer than a
 * whole line is cut. Without a width the line is returned as it is.
 */
export function wrapLine(line: string, width: number | undefined, indent: number): string {
  if (width === undefined || visibleLength(line) <= width) return line;
  const margin = Math.max(0, Math.min(indent, width - MIN_TEXT));
  const room = Math.max(1, width - margin);
  const out: string[] = [];
  const lead = /^ */.exec(line)![0];
  let current = lead;
  let used = lead.length;
  let fresh = true;
  const limit = () => (out.length === 0 ? width : room);
  for (const word of line.slice(lead.length).split(' ')) {
    for (const piece of pieces(word, room)) {
      const size = visibleLength(piece);
      if (!fresh && used + 1 + size > limit()) {
        out.push(current.trimEnd());
        // A run of spaces at the break is dropped: the next line starts with the next word.
        current = piece;
        used = size;
        fresh = piece === '';
        continue;
      }
      if (fresh && piece === '') continue;
      current = fresh ? `${current}${piece}` : `${current} ${piece}`;
      used += (fresh ? 0 : 1) + size;
      fresh = false;
    }
  }
  out.push(current);
  return out.map((text, i) => (i === 0 ? text : `${' '.repeat(margin)}${text}`)).join('\n');
}

/**
 * `prefix` then `text`, the text wrapped to the columns left after the prefix and its
 * continuation lines aligned under its start. When that leaves too little room, the whole line
 * wraps with a small indent instead.
 */
export function wrapAfter(prefix: string, text: string, width: number | undefined): string {
  if (width === undefined) return `${prefix}${text}`;
  const margin = visibleLength(prefix);
  if (width - margin < MIN_TEXT) return wrapLine(`${prefix}${text}`, width, 4);
  return wrapLine(text, width - margin, 0)
    .split('\n')
    .map((line, i) => `${i === 0 ? prefix : ' '.repeat(margin)}${line}`)
    .join('\n');
}
