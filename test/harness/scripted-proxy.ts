import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does with the n-th request (from 1). */
export type ProxyAction =
  | 'forward'
  /** Destroys the connection without answering, as a crash or a network cut would. */
  | 'drop'
  /** Keeps the connection open and never answers. */
  | 'hang'
  | { status: number; headers?: Record<string, string>; body?: string };

export interface ScriptedProxy {
  readonly url: string;
  /** Requests received so far. */
  readonly requests: number;
  /** Resolves once the `n`-th request (from 1) has arrived, its body read and its action chosen. */
  arrived(n: number): Promise<void>;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

/**
 * A real HTTP server in front of `target` that answers each request as `script(n)` says:
 * forward it, drop the connection, hang, or answer with a canned response.
 */
export async function startScriptedProxy(
  target: string,
  script: (n: number) => ProxyAction,
): Promise<ScriptedProxy> {
  let requests = 0;
  let bodiesRead = 0;
  const waiters: Array<{ readonly n: number; readonly resolve: () => void }> = [];
  const server = http.createServer(async (request, response) => {
    requests += 1;
    const action = script(requests);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    bodiesRead += 1;
    for (const waiter of waiters.filter((w) => w.n <= bodiesRead)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    if (action === 'drop') return request.socket.destroy();
    if (action === 'hang') return;
    if (action !== 'forward') {
      response.writeHead(action.status, action.headers ?? {});
      return response.end(action.body ?? '');
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    const upstream = await fetch(`${target}${request.url}`, {
      method: request.method ?? 'GET',
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const answer: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') answer[name] = value;
    });
    response.writeHead(upstream.status, answer);
    response.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    arrived: (n) =>
      n <= bodiesRead ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
