/**
 * A webhook receiver on a free loopback port, as a user would write one: it verifies each
 * request's signature with the `standardwebhooks` package and answers the statuses it is told.
 */
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface Received {
  readonly headers: Record<string, string>;
  readonly body: string;
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  readonly json: any;
  /** Whether `standardwebhooks` accepted the signature with the secret of the request's rule. */
  readonly verified: boolean;
  /** When the request's body had arrived (ms since the epoch). */
  readonly at: number;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Statuses to answer, in order; 200 once they run out. */
  answers: number[];
  /** The signing secret to verify with (set after creating the rule). */
  secret: string | undefined;
  /** Awaited after a request is recorded and before it is answered (to stage what happens meanwhile). */
  beforeAnswer: ((request: Received) => Promise<void>) | undefined;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  const receiver: Receiver = {
    url: '',
    received,
    answers: [],
    secret: undefined,
    beforeAnswer: undefined,
    waitFor(count, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(received);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`received ${received.length} of ${count} deliveries within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', async () => {
      const at = Date.now();
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
      );
      let verified = false;
      try {
        if (receiver.secret) {
          new Webhook(receiver.secret).verify(body, headers);
          verified = true;
        }
      } catch {
        verified = false;
      }
      const entry = { headers, body, json: JSON.parse(body), verified, at };
      received.push(entry);
      const status = receiver.answers.shift() ?? 200;
      await receiver.beforeAnswer?.(entry);
      response.statusCode = status;
      response.end();
      for (const waiter of [...waiters]) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  Object.assign(receiver, { url: `http://127.0.0.1:${address.port}/hooks` });
  return receiver;
}
