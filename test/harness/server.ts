import { type App, type AppOptions, buildApp } from '../../src/app.js';
import { type ConfigOverrides, loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';

export interface TestServer {
  readonly app: App;
  readonly url: string;
  /** POST /graphql with an API key; returns status, headers and parsed body. */
  gql(
    key: string | undefined,
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GqlResponse>;
  close(): Promise<void>;
}

export interface GqlResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  body: any;
}

/** A real server on a random port over the given database (`options`: e.g. a clock of the test's). */
export async function startServer(
  db: Database,
  overrides: ConfigOverrides = {},
  options: Omit<AppOptions, 'db'> = {},
): Promise<TestServer> {
  // Idle keep-alive connections close at once on shutdown (the drain's grace is tested on its own),
  // so that closing a test's server does not wait for it. While it runs, an idle connection stays
  // open a minute: the test's client shares the server's event loop, and a test that holds it (a
  // 20 MB write to the embedded database) would otherwise find the server's 5 s and the client's
  // 4 s idle timers due at once, the client's request racing the server's close (ECONNRESET).
  // The idle timeout itself is tested with a server of its own (test/ops).
  const config = loadConfig(
    {},
    {
      port: 0,
      logLevel: 'silent',
      ...overrides,
      connections: { drainIdleMs: 0, keepAliveTimeoutMs: 60_000, ...overrides.connections },
    },
  );
  const app = await buildApp(config, { ...options, db });
  const url = await app.listen();
  return {
    app,
    url,
    async gql(key, query, variables, headers = {}) {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(key === undefined ? {} : { authorization: `Apikey ${key}` }),
          ...headers,
        },
        body: JSON.stringify({ query, variables }),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: text ? JSON.parse(text) : undefined,
      };
    },
    close: () => app.close(),
  };
}
