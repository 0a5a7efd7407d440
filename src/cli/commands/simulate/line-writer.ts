import { once } from 'node:events';
import type { Writable } from 'node:stream';

const FLUSH_AT = 1 << 16;

/**
 * Buffers NDJSON lines and writes them in large pieces, waiting for the stream to drain so that
 * a slow reader holds the generator back instead of filling memory. A reader that goes away
 * (EPIPE: `wfapi simulate | head`) ends the writing quietly: `gone` turns true.
 */
export class LineWriter {
  private buffer = '';
  private closedByReader = false;

  constructor(private readonly stream: Writable) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') this.closedByReader = true;
    });
  }

  get gone(): boolean {
    return this.closedByReader;
  }

  /** Adds a line; true when the buffer is large enough to `flush`. */
  push(line: string): boolean {
    this.buffer += `${line}\n`;
    return this.buffer.length >= FLUSH_AT;
  }

  async flush(): Promise<void> {
    if (this.buffer === '' || this.closedByReader) return;
    const text = this.buffer;
    this.buffer = '';
    if (this.stream.write(text)) return;
    try {
      await once(this.stream, 'drain');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
      this.closedByReader = true;
    }
  }
}
