/**
 * PostgreSQL's COPY text format, for bulk writes (`Transaction.copyIn`): one row a line, columns
 * separated by tabs, `\N` for NULL, and backslash escapes for the characters that would break
 * the format. The values here come from validated records (no U+0000, valid Unicode).
 */
export type CopyValue = string | number | boolean | Date | Uint8Array | null;

/**
 * A row to write: its value of each column, keyed by the column's name (as a table definition in
 * tables.ts names it). Writers read the values by the statement's column names, so a column added
 * to or moved in a definition cannot shift a row's values into its neighbours.
 */
export type RowValues<Name extends string = string> = { readonly [K in Name]: CopyValue };

const SPECIAL = /[\\\t\n\r]/g;
/** SPECIAL without the global flag: most text has nothing to escape, and a test is 3x cheaper than a replace. */
const HAS_SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function field(value: CopyValue): string {
  if (value === null) return '\\N';
  if (typeof value === 'string')
    return HAS_SPECIAL.test(value) ? value.replace(SPECIAL, (c) => ESCAPES[c]!) : value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  // bytea in hex form; its own backslash is escaped for the COPY layer.
  return `\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
}

/** A row's line of COPY text: its values of `columns`, in that order. */
export function copyLine(row: RowValues, columns: readonly string[]): string {
  let line = field(row[columns[0]!] as CopyValue);
  for (let i = 1; i < columns.length; i++) line += `\t${field(row[columns[i]!] as CopyValue)}`;
  return `${line}\n`;
}

/**
 * The COPY text of rows, each its values of `columns` (the statement's, in its order), in chunks
 * of about `chunkChars`: a bulk write never holds the whole text of a batch at once.
 */
export function* copyChunks(
  rows: Iterable<RowValues>,
  columns: readonly string[],
  chunkChars = 64 * 1024,
): Generator<string> {
  let chunk = '';
  for (const row of rows) {
    chunk += copyLine(row, columns);
    if (chunk.length >= chunkChars) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk.length > 0) yield chunk;
}
