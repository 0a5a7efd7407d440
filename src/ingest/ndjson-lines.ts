/**
 * Splits an NDJSON byte stream into lines incrementally, holding at most one line in memory:
 * a line longer than the bound is reported by its number and skipped, never buffered whole.
 * Only web-platform APIs (Uint8Array, TextDecoder), so the CLI and the server share it.
 */

/** Longest line accepted: a log message may be 100,000 characters, each up to 6 bytes escaped. */
export const MAX_LINE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export type NdjsonLine =
  /** `text` has no line terminator (`\n` or `\r\n`); it is empty for a blank line. */
  | { readonly line: number; readonly text: string; readonly bytes: number }
  | { readonly line: number; readonly error: string; readonly bytes: number };

export class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private parts: Uint8Array[] = [];
  private partBytes = 0;
  /** The current line passed the bound: its bytes are counted and dropped until its end. */
  private overlong = false;
  private lineNumber = 0;

  constructor(private readonly maxLineBytes = MAX_LINE_BYTES) {}

  /** Lines completed by this chunk, in order; numbered from 1 over the whole stream. */
  push(chunk: Uint8Array): NdjsonLine[] {
    const lines: NdjsonLine[] = [];
    let start = 0;
    while (start <= chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) {
        this.hold(chunk.subarray(start));
        break;
      }
      this.hold(chunk.subarray(start, end));
      lines.push(this.take());
      start = end + 1;
    }
    return lines;
  }

  /** The last line when the stream does not end with a newline. */
  end(): NdjsonLine[] {
    return this.partBytes > 0 || this.overlong ? [this.take()] : [];
  }

  private hold(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.partBytes += bytes.length;
    if (this.overlong) return;
    if (this.partBytes > this.maxLineBytes) {
      this.overlong = true;
      this.parts = [];
    } else {
      this.parts.push(bytes);
    }
  }

  private take(): NdjsonLine {
    const line = ++this.lineNumber;
    const bytes = this.partBytes;
    const overlong = this.overlong;
    const parts = this.parts;
    this.parts = [];
    this.partBytes = 0;
    this.overlong = false;
    if (overlong) return { line, bytes, error: `line is longer than ${this.maxLineBytes} bytes` };
    let joined = parts.length === 1 ? parts[0]! : concat(parts, bytes);
    if (joined.length > 0 && joined[joined.length - 1] === CARRIAGE_RETURN) joined = joined.subarray(0, -1);
    try {
      return { line, bytes, text: this.decoder.decode(joined) };
    } catch {
      return { line, bytes, error: 'line is not valid UTF-8' };
    }
  }
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  const joined = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/** The lines of a byte stream, as they complete. */
export async function* ndjsonLines(
  chunks: AsyncIterable<Uint8Array>,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<NdjsonLine> {
  const splitter = new LineSplitter(maxLineBytes);
  for await (const chunk of chunks) yield* splitter.push(chunk);
  yield* splitter.end();
}
