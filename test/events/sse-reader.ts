/** A raw Server-Sent Events reader over real HTTP, for tests that look at the stream's bytes. */

export interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  /** The text of comment lines (`: ...`) of the frame. */
  readonly comments: readonly string[];
}

export interface SseReader {
  readonly status: number;
  readonly headers: Headers;
  /** The next frame that `match` accepts, skipping others; rejects after `timeoutMs`. */
  next(match?: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  /** The next `execution` event's id and parsed data. */
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  nextExecution(timeoutMs?: number): Promise<{ id: string; execution: any }>;
  close(): void;
}

export async function openEvents(
  url: string,
  key: string | undefined,
  options: { query?: string; lastEventId?: string; headers?: Record<string, string> } = {},
): Promise<SseReader> {
  const controller = new AbortController();
  const response = await fetch(`${url}/events${options.query ? `?${options.query}` : ''}`, {
    headers: {
      accept: 'text/event-stream',
      ...(key === undefined ? {} : { authorization: `Apikey ${key}` }),
      ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }),
      ...options.headers,
    },
    signal: controller.signal,
  });
  const frames: SseFrame[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: Record<string, string> = {};
          const comments: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(':');
              frame[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
            }
          }
          frames.push({ ...frame, comments });
          end = buffer.indexOf('\n\n');
        }
        wake?.();
      }
    } catch {}
    ended = true;
    wake?.();
  })();
  const reader: SseReader = {
    status: response.status,
    headers: response.headers,
    async next(match = () => true, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = frames.findIndex(match);
        if (index >= 0) return frames.splice(0, index + 1)[index]!;
        frames.length = 0;
        if (ended) throw new Error('the stream ended');
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    async nextExecution(timeoutMs) {
      const frame = await reader.next((f) => f.event === 'execution', timeoutMs);
      return { id: frame.id!, execution: JSON.parse(frame.data!) };
    },
    close: () => controller.abort(),
  };
  return reader;
}
