/**
 * Configuration is read once, from the environment and explicit overrides (CLI flags, tests),
 * validated and frozen. Nothing below this file reads `process.env`.
 *
 * Every setting is declared once, in SETTINGS: its variable, kind, default, range and
 * description. The Config type, the parser, the checks of overrides and the configuration
 * reference (docs/configuration.md, `npm run gen:docs`) are all derived from it.
 */

type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** One setting: where it is read from, how, and how the reference describes it. */
export interface Setting<T> {
  readonly variable: string;
  /** The command-line flag that sets it too, if any. */
  readonly flag?: string;
  /** The values it takes, as the reference says them. */
  readonly kind: string;
  /** Its default, as the reference shows it. */
  readonly shownDefault: string;
  readonly description: string;
  /** Its value from the environment (the default when unset or empty); throws ConfigError. */
  read(env: Env): T;
  /** Whether an override (tests, embedding code) is a value of its kind. */
  accepts(value: unknown): boolean;
}

const str = (env: Env, name: string): string | undefined => {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
};

const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
/** A number an override may set: tests use fractions (a rate of 0.001 a second) the environment cannot. */
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isString = (value: unknown) => typeof value === 'string';
const isOptional = (check: (value: unknown) => boolean) => (value: unknown) =>
  value === undefined || check(value);

function int(
  variable: string,
  fallback: number,
  [min, max]: readonly [number, number],
  description: string,
  flag?: string,
): Setting<number> {
  return {
    variable,
    ...(flag && { flag }),
    kind: `integer, ${grouped(min)} to ${max === Number.MAX_SAFE_INTEGER ? '2^53 - 1' : grouped(max)}`,
    shownDefault: `\`${fallback}\``,
    description,
    read(env) {
      const raw = str(env, variable);
      if (raw === undefined) return fallback;
      const value = Number(raw);
      if (!Number.isInteger(value) || value < min || value > max) {
        throw new ConfigError(`${variable} must be an integer between ${min} and ${max}, got "${raw}"`);
      }
      return value;
    },
    accepts: isNumber,
  };
}

function optionalInt(
  variable: string,
  range: readonly [number, number],
  shownDefault: string,
  description: string,
): Setting<number | undefined> {
  const setting = int(variable, 0, range, description);
  return {
    ...setting,
    shownDefault,
    read: (env) => (str(env, variable) === undefined ? undefined : setting.read(env)),
    accepts: isOptional(isNumber),
  };
}

function bool(variable: string, fallback: boolean, description: string): Setting<boolean> {
  return {
    variable,
    kind: '`true` or `false`',
    shownDefault: `\`${fallback}\``,
    description,
    read(env) {
      const raw = str(env, variable);
      if (raw === undefined) return fallback;
      if (raw === 'true' || raw === 'false') return raw === 'true';
      throw new ConfigError(`${variable} must be true or false, got "${raw}"`);
    },
    accepts: (value) => typeof value === 'boolean',
  };
}

/** A switch: `1`/`true` or `0`/`false`, off when unset. */
function flag(variable: string, description: string): Setting<boolean> {
  return {
    variable,
    kind: '`1`, `true`, `0` or `false`',
    shownDefault: 'unset',
    description,
    read(env) {
      const raw = str(env, variable);
      if (raw === undefined || raw === '0' || raw === 'false') return false;
      if (raw === '1' || raw === 'true') return true;
      throw new ConfigError(`${variable} must be 1, true, 0 or false, got "${raw}"`);
    },
    accepts: (value) => typeof value === 'boolean',
  };
}

function text(variable: string, fallback: string, description: string, flag?: string): Setting<string> {
  return {
    variable,
    ...(flag && { flag }),
    kind: 'text',
    shownDefault: `\`${fallback}\``,
    description,
    read: (env) => str(env, variable) ?? fallback,
    accepts: isString,
  };
}

function optionalText(variable: string, description: string, flag?: string): Setting<string | undefined> {
  return {
    variable,
    ...(flag && { flag }),
    kind: 'text',
    shownDefault: 'unset',
    description,
    read: (env) => str(env, variable),
    accepts: isOptional(isString),
  };
}

function oneOf<T extends string>(
  variable: string,
  values: readonly T[],
  fallback: T,
  description: string,
): Setting<T> {
  return {
    variable,
    kind: values.map((value) => `\`${value}\``).join(', '),
    shownDefault: `\`${fallback}\``,
    description,
    read(env) {
      const raw = str(env, variable) ?? fallback;
      if (!(values as readonly string[]).includes(raw)) {
        throw new ConfigError(`${variable} must be one of ${values.join(', ')}, got "${raw}"`);
      }
      return raw as T;
    },
    accepts: (value) => (values as readonly unknown[]).includes(value),
  };
}

/** A PostgreSQL connection URL: any other scheme (mysql://, a bare host) fails here, not at connect time. */
function checkPostgresUrl(variable: string, raw: string): string {
  if (!/^postgres(ql)?:\/\//i.test(raw)) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1];
    throw new ConfigError(
      `${variable} must be a postgres:// or postgresql:// URL${scheme ? `, got a ${scheme}: URL` : ''}`,
    );
  }
  return raw;
}

function postgresUrl(variable: string, description: string): Setting<string | undefined> {
  return {
    ...optionalText(variable, description),
    kind: '`postgres://` or `postgresql://` URL',
    read(env) {
      const raw = str(env, variable);
      return raw === undefined ? undefined : checkPostgresUrl(variable, raw);
    },
  };
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

function postgresUrls(variable: string, description: string): Setting<readonly string[]> {
  return {
    variable,
    kind: 'comma-separated `postgres://` URLs',
    shownDefault: 'unset',
    description,
    read: (env) => list(str(env, variable)).map((url) => checkPostgresUrl(variable, url)),
    accepts: (value) => Array.isArray(value) && value.every(isString),
  };
}

function corsOrigins(variable: string, description: string): Setting<'*' | readonly string[]> {
  return {
    variable,
    kind: '`*` or comma-separated origins',
    shownDefault: '`*`',
    description,
    read(env) {
      const value = str(env, variable) ?? '*';
      if (value === '*') return '*';
      const origins = list(value);
      for (const origin of origins) {
        if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
          throw new ConfigError(
            `${variable} must be * or a comma-separated list of origins, got "${origin}"`,
          );
        }
      }
      return origins;
    },
    accepts: (value) => value === '*' || (Array.isArray(value) && value.every(isString)),
  };
}

/** 32 bytes given as 64 hex digits or base64. */
function key32(variable: string, shownDefault: string, description: string): Setting<Buffer | undefined> {
  return {
    variable,
    kind: '32 bytes: 64 hex digits or base64',
    shownDefault,
    description,
    read(env) {
      const raw = str(env, variable);
      if (raw === undefined) return undefined;
      const bytes = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
      if (bytes.length !== 32)
        throw new ConfigError(`${variable} must be 32 bytes as 64 hex digits or base64`);
      return bytes;
    },
    accepts: isOptional((value) => Buffer.isBuffer(value) && value.length === 32),
  };
}

/** A switch spelled `on` or `off`. */
function onOff(variable: string, fallback: 'on' | 'off', description: string): Setting<boolean> {
  const setting = oneOf(variable, ['on', 'off'] as const, fallback, description);
  return {
    ...setting,
    read: (env) => setting.read(env) === 'on',
    accepts: (value) => typeof value === 'boolean',
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const SCHEMA_KINDS = ['hosted', 'extended'] as const;
/** Which public schema a server serves (WFAPI_SCHEMA). */
export type SchemaKind = (typeof SCHEMA_KINDS)[number];

/** Every setting, in the shape of Config: a group of settings is a nested object. */
export const SETTINGS = {
  port: int('PORT', 4000, [0, 65535], 'port to listen on', '--port'),
  host: text('HOST', '127.0.0.1', 'interface to listen on', '--host'),
  databaseUrl: postgresUrl(
    'DATABASE_URL',
    "PostgreSQL connection string; when unset, the embedded PGlite database is used. On the database's own machine, its Unix socket (`postgres://user@localhost/db?host=/var/run/postgresql`) costs less per query than TCP",
  ),
  databaseReplicaUrls: postgresUrls(
    'DATABASE_REPLICA_URLS',
    'comma-separated PostgreSQL streaming replicas of `DATABASE_URL` that answer `/graphql` reads ([docs/replicas.md](replicas.md)); refused without `DATABASE_URL`',
  ),
  replicaMaxLagMs: int(
    'WFAPI_REPLICA_MAX_LAG_MS',
    10_000,
    [0, 3_600_000],
    'a replica further behind the primary than this is skipped (the primary answers) until it catches up',
  ),
  dataDir: text(
    'WFAPI_DATA_DIR',
    './.wfapi',
    'directory of the embedded database (`memory://` keeps it in memory)',
  ),
  dbPoolSize: int('WFAPI_DB_POOL_SIZE', 10, [1, 500], 'PostgreSQL connections in the pool'),
  dbPreparedStatements: bool(
    'WFAPI_DB_PREPARED_STATEMENTS',
    true,
    'prepare each statement once per PostgreSQL connection (saves re-planning every read); `false` behind a pooler that does not keep them, such as PgBouncer in transaction mode before 1.21',
  ),
  adminToken: optionalText(
    'WFAPI_ADMIN_TOKEN',
    'enables `POST /admin/graphql` (`Authorization: Bearer <token>`); 404 when unset',
  ),
  ingestToken: optionalText(
    'WFAPI_INGEST_TOKEN',
    'enables `POST /ingest` (`Authorization: Bearer <token>`); 404 when unset',
  ),
  redisUrl: optionalText(
    'REDIS_URL',
    'share rate-limit buckets across instances through Redis; in memory when unset (set it whenever several instances serve one database)',
  ),
  logLevel: oneOf(
    'WFAPI_LOG_LEVEL',
    LOG_LEVELS,
    'info',
    '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`; JSON lines on stdout',
  ),
  limits: {
    maxDepth: int('WFAPI_MAX_DEPTH', 10, [2, 100], 'deepest selection a query may have'),
    maxFields: int(
      'WFAPI_MAX_FIELDS',
      1000,
      [10, 1_000_000],
      'fields an operation may select once its fragments are expanded',
    ),
    maxSpreads: int(
      'WFAPI_MAX_SPREADS',
      500,
      [1, 1_000_000],
      'fragment spreads an operation may expand (a spread inside a fragment spread twice counts twice)',
    ),
    maxMergeWork: int(
      'WFAPI_MAX_MERGE_WORK',
      20_000,
      [100, 100_000_000],
      "comparisons GraphQL's field-merging check may need (pairs of fields sharing a response name, weighed by their sizes)",
    ),
    maxAliases: int('WFAPI_MAX_ALIASES', 30, [1, 1000], 'aliases a query may use'),
    maxTokens: int('WFAPI_MAX_TOKENS', 2000, [100, 100000], 'GraphQL tokens a query may have'),
    documentCacheBytes: int(
      'WFAPI_DOCUMENT_CACHE_BYTES',
      32 * 1024 * 1024,
      [1_000_000, 2 ** 31],
      'estimated memory kept per GraphQL endpoint for parsed and compiled documents (least recently used leave first)',
    ),
    maxBodyBytes: int('WFAPI_MAX_BODY_BYTES', 100_000, [1000, 10_000_000], 'largest `/graphql` request body'),
    requestTimeoutMs: int(
      'WFAPI_REQUEST_TIMEOUT_MS',
      10_000,
      [10, 600_000],
      'time limit of one request (and PostgreSQL `statement_timeout`)',
    ),
    ingestMaxBodyBytes: int(
      'WFAPI_INGEST_MAX_BYTES',
      2 ** 31,
      [1000, Number.MAX_SAFE_INTEGER],
      'largest `/ingest` body',
    ),
    ingestMaxDecompressedBytes: int(
      'WFAPI_INGEST_MAX_DECOMPRESSED_BYTES',
      256 * 2 ** 20,
      [1000, Number.MAX_SAFE_INTEGER],
      'NDJSON a gzip `/ingest` body may decompress to (413 past it, the complete lines within stored)',
    ),
    ingestMaxGzipRatio: int(
      'WFAPI_INGEST_MAX_GZIP_RATIO',
      100,
      [2, 1_000_000],
      'times its compressed size a gzip `/ingest` body may decompress to, once past its first MiB (413 past it)',
    ),
    ingestBatchSize: int(
      'WFAPI_INGEST_BATCH_SIZE',
      5000,
      [1, 100_000],
      'records stored per ingestion transaction',
    ),
    dbConcurrencyPerOrganization: optionalInt(
      'WFAPI_DB_CONCURRENCY_PER_ORG',
      [1, 500],
      '`2` (PostgreSQL), `1` (embedded)',
      "database statements one organization's `/graphql` requests run at once (docs/operators.md)",
    ),
    maxAnswerBytes: int(
      'WFAPI_MAX_ANSWER_BYTES',
      16 * 1024 * 1024,
      [1000, 2 ** 30],
      'log text one `/graphql` answer may carry (docs/operators.md)',
    ),
    rollupCacheMb: int(
      'WFAPI_ROLLUP_CACHE_MB',
      32,
      [0, 65_536],
      'memory (MiB, estimated) for rollup answers a server keeps and reuses while the days they cover are unchanged (docs/scaling.md); `0` keeps none',
    ),
  },
  rateLimit: {
    burst: int(
      'WFAPI_RATE_LIMIT_BURST',
      200,
      [1, 1_000_000],
      'requests a key may send at once (token bucket size)',
    ),
    perSecond: int(
      'WFAPI_RATE_LIMIT_PER_SECOND',
      100,
      [1, 1_000_000],
      'sustained requests per second per key (refill rate)',
    ),
  },
  authFailureLimit: {
    burst: int(
      'WFAPI_AUTH_FAILURE_BURST',
      20,
      [1, 1_000_000],
      'failed authentications an address may make at once',
    ),
    perSecond: int(
      'WFAPI_AUTH_FAILURE_PER_SECOND',
      1,
      [1, 1_000_000],
      'sustained failed authentications per second per address',
    ),
  },
  connections: {
    maxConnections: int(
      'WFAPI_MAX_CONNECTIONS',
      1000,
      [1, 1_000_000],
      'open connections in all; past it a newcomer takes the place of the oldest idle connection of the address holding the most, else it is answered 503 and closed',
    ),
    maxConnectionsPerAddress: int(
      'WFAPI_MAX_CONNECTIONS_PER_ADDRESS',
      100,
      [0, 1_000_000],
      'open connections from one TCP peer (answered 429 and closed past it; `0`: no cap). Behind a proxy every connection comes from the proxy: raise it or set `0` there',
    ),
    headersTimeoutMs: int(
      'WFAPI_HEADERS_TIMEOUT_MS',
      10_000,
      [100, 600_000],
      "time for a request's headers to arrive",
    ),
    bodyTimeoutMs: int(
      'WFAPI_BODY_TIMEOUT_MS',
      10_000,
      [100, 600_000],
      'time for a whole request body to arrive (all routes but `/ingest`); 408 past it',
    ),
    keepAliveTimeoutMs: int(
      'WFAPI_KEEP_ALIVE_TIMEOUT_MS',
      5_000,
      [100, 600_000],
      'how long an idle keep-alive connection stays open',
    ),
    ingestIdleTimeoutMs: int(
      'WFAPI_INGEST_IDLE_TIMEOUT_MS',
      30_000,
      [100, 3_600_000],
      "longest wait for the next chunk of an `/ingest` body (no limit on the upload's total time)",
    ),
    drainIdleMs: int(
      'WFAPI_DRAIN_IDLE_MS',
      1000,
      [0, 600_000],
      'on SIGTERM/SIGINT, how long an idle keep-alive connection stays open for a request already on its way (answered with `Connection: close`)',
    ),
  },
  shutdownGraceMs: int(
    'WFAPI_SHUTDOWN_GRACE_MS',
    10_000,
    [0, 600_000],
    'how long SIGTERM/SIGINT wait for requests in flight (an `/ingest` upload included) before cutting their connections; the process exits at most 2 s later',
  ),
  readyTimeoutMs: int(
    'WFAPI_READY_TIMEOUT_MS',
    1500,
    [10, 60_000],
    'how long `/readyz` waits for the database before answering 503',
  ),
  authCacheMs: int(
    'WFAPI_AUTH_CACHE_MS',
    1000,
    [0, 60_000],
    'how long a server reuses the credentials of a key it has read (`0`: read them on every request)',
  ),
  keyUsageFlushMs: int(
    'WFAPI_KEY_USAGE_FLUSH_MS',
    30_000,
    [10, 3_600_000],
    'how often the last use of API keys is written',
  ),
  trustProxy: bool(
    'WFAPI_TRUST_PROXY',
    false,
    'take the client address from `X-Forwarded-For` (only behind a trusted proxy)',
  ),
  corsOrigins: corsOrigins(
    'WFAPI_CORS_ORIGINS',
    'browser origins allowed to call `/graphql`: `*` or a comma-separated list',
  ),
  schema: oneOf(
    'WFAPI_SCHEMA',
    SCHEMA_KINDS,
    'extended',
    "`hosted` serves the hosted platform's schema exactly (no insight queries, no `extensions.dataAsOf`); `extended` adds [the insight queries](insight.md)",
  ),
  mcp: onOff(
    'WFAPI_MCP',
    'on',
    '`off` switches off `POST /mcp`, the [Model Context Protocol endpoint](mcp.md) for AI agents (404)',
  ),
  metrics: {
    token: optionalText(
      'WFAPI_METRICS_TOKEN',
      'enables `GET /metrics` (`Authorization: Bearer <token>`, [Prometheus](operators.md#metrics-for-prometheus)); 404 when unset',
    ),
    maxWorkflows: int(
      'WFAPI_METRICS_MAX_WORKFLOWS',
      500,
      [1, 100_000],
      '`workflow` label values per organization in the platform metrics; the other workflows are summed under `workflow="other"`',
    ),
    platformTimeoutMs: int(
      'WFAPI_METRICS_TIMEOUT_MS',
      5000,
      [10, 600_000],
      'how long a scrape waits for the platform metrics before answering the last ones read (`wfapi_metrics_platform_up 0`)',
    ),
  },
  partitions: {
    retentionDays: optionalInt(
      'WFAPI_RETENTION_DAYS',
      [1, 36_500],
      'unset (keep everything)',
      'raw executions, log lines and events older than this many days are dropped a whole month partition at a time; rollups stay, so counts, activity and the insight aggregates over the dropped period still answer (docs/partitions.md)',
    ),
    maintenanceMs: int(
      'WFAPI_PARTITION_MAINTENANCE_MS',
      3_600_000,
      [1000, 86_400_000],
      "how often the server creates the months' partitions ahead, moves rows out of the DEFAULT partition, applies retention, deletes the one-minute and five-minute duration rollups older than nine days and rebuilds the rollup indexes grown far past their compact size (also once at start)",
    ),
    rollupReindex: onOff(
      'WFAPI_ROLLUP_REINDEX',
      'on',
      'rebuild a rollup index with `REINDEX CONCURRENTLY` once it takes 1.4 times the size of its entries written compactly and at least 16 MiB, at the maintenance interval, one instance at a time (PostgreSQL only; docs/operators.md)',
    ),
  },
  events: {
    maxStreamsPerKey: int(
      'WFAPI_SSE_MAX_STREAMS',
      100,
      [1, 100_000],
      '[live streams](stream.md) (`GET /events`) one API key may hold open on a server; the next answers 429',
    ),
    heartbeatMs: int(
      'WFAPI_SSE_HEARTBEAT_MS',
      15_000,
      [10, 600_000],
      'interval of the comment line that keeps proxies from closing an idle stream',
    ),
    pollMs: int(
      'WFAPI_SSE_POLL_MS',
      500,
      [10, 60_000],
      "how often a server reads the change feed for all its open streams (one query): the stream's delivery delay",
    ),
    liveWindowMs: int(
      'WFAPI_SSE_LIVE_WINDOW_MS',
      24 * 3_600_000,
      [0, 365 * 24 * 3_600_000],
      'a change whose execution finished (or, unfinished, started) longer ago than this when ingested is [history](stream.md#live-changes-and-history), sent only to streams that ask for it (`0`: every change is live)',
    ),
  },
  nats: {
    url: optionalText(
      'WFAPI_NATS_URL',
      'NATS server URL(s), comma-separated, of `wfapi ingest-worker` ([ingestion through NATS JetStream](nats-ingestion.md))',
      '--nats',
    ),
    batchMessages: int(
      'WFAPI_NATS_BATCH_MESSAGES',
      20,
      [1, 10_000],
      'messages an ingest worker pulls, stores and acknowledges at once',
    ),
    ackWaitMs: int(
      'WFAPI_NATS_ACK_WAIT_MS',
      60_000,
      [1000, 3_600_000],
      'ack wait of the ingest consumer when a worker creates it: a message not acknowledged by then is redelivered (a worker still storing says so every third of it)',
    ),
    maxDeliveries: int(
      'WFAPI_NATS_MAX_DELIVERIES',
      5,
      [1, 1000],
      'deliveries of a message that keeps failing (not for an unavailable database) before an ingest worker moves it to `wfapi.dead.<organizationId>` ([poison messages](nats-ingestion.md#poison-messages-and-the-dead-letter-subject))',
    ),
  },
  alerts: {
    secretKey: key32(
      'WFAPI_ALERTS_SECRET_KEY',
      'derived from `WFAPI_ADMIN_TOKEN`',
      '32 bytes (64 hex digits or base64) that encrypt webhook signing secrets at rest; set the same on every instance ([alerts](alerts.md))',
    ),
    allowPrivate: flag(
      'WFAPI_ALERTS_ALLOW_PRIVATE',
      '`1` allows alert receivers on loopback, private and link-local addresses (refused otherwise: server-side request forgery)',
    ),
    worker: bool('WFAPI_ALERTS_WORKER', true, 'run the alert delivery worker and rule timer in this process'),
    pollMs: int(
      'WFAPI_ALERTS_POLL_MS',
      1000,
      [10, 600_000],
      'how often the delivery worker looks for due deliveries (ingestion also wakes it)',
    ),
    evaluateMs: int(
      'WFAPI_ALERTS_EVALUATE_MS',
      30_000,
      [100, 3_600_000],
      'how often `FAILURE_RATE` and `NO_EXECUTIONS` rules are evaluated',
    ),
    timeoutMs: int(
      'WFAPI_ALERTS_TIMEOUT_MS',
      10_000,
      [100, 600_000],
      'time limit of one delivery attempt, connection to last byte',
    ),
    concurrency: int(
      'WFAPI_ALERTS_CONCURRENCY',
      8,
      [1, 1000],
      'alert deliveries in flight at once, per process',
    ),
    retryBaseMs: int(
      'WFAPI_ALERTS_RETRY_BASE_MS',
      5000,
      [10, 3_600_000],
      'delay of the first delivery retry (doubling up to an hour, with jitter, until `WFAPI_ALERTS_GIVE_UP_MS`)',
    ),
    giveUpMs: int(
      'WFAPI_ALERTS_GIVE_UP_MS',
      24 * 3_600_000,
      [100, 7 * 24 * 3_600_000],
      'how long a failing delivery is retried, from when it was queued or redelivered, before it is marked `FAILED`',
    ),
    resendMs: int(
      'WFAPI_ALERTS_RESEND_MS',
      15 * 60_000,
      [100, 3_600_000],
      "how often a firing Alertmanager alert is posted again; each post's `endsAt` is four of these later",
    ),
  },
} as const;

interface Settings {
  readonly [key: string]: Setting<unknown> | Settings;
}
const isSetting = (entry: Setting<unknown> | Settings): entry is Setting<unknown> =>
  typeof (entry as Setting<unknown>).read === 'function';

/** The values of a declaration: a setting's value, or a group of them. */
type ValuesOf<S> = S extends Setting<infer T> ? T : { readonly [K in keyof S]: ValuesOf<S[K]> };

export type Config = ValuesOf<typeof SETTINGS>;
export type RateLimitConfig = Config['rateLimit'];

/** What tests and embedding code may set beside the environment: any setting, a group in part. */
export type ConfigOverrides = {
  [K in keyof typeof SETTINGS]?: (typeof SETTINGS)[K] extends Setting<infer T> ? T : Partial<Config[K]>;
};

/** Every setting of the declaration, with where it sits (`limits.maxDepth`). */
export function settingsList(
  settings: Settings = SETTINGS,
  prefix = '',
): Array<{ path: string; setting: Setting<unknown> }> {
  return Object.entries(settings).flatMap(([key, entry]) =>
    isSetting(entry)
      ? [{ path: `${prefix}${key}`, setting: entry }]
      : settingsList(entry, `${prefix}${key}.`),
  );
}

function readAll(settings: Settings, env: Env): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings).map(([key, entry]) => [
      key,
      isSetting(entry) ? entry.read(env) : readAll(entry, env),
    ]),
  );
}

/**
 * `values` with `overrides` laid over them, each checked against its setting's kind: an unknown
 * key or a value of another kind is a ConfigError. Ranges bound what operators set in the
 * environment; tests go past them on purpose (a 1 ms time limit), so overrides are not held to them.
 */
function overlay(
  settings: Settings,
  values: Record<string, unknown>,
  overrides: Record<string, unknown>,
  prefix = '',
): Record<string, unknown> {
  const merged = { ...values };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined && !(key in settings)) continue;
    const entry = settings[key];
    if (entry === undefined) throw new ConfigError(`unknown configuration override ${prefix}${key}`);
    if (isSetting(entry)) {
      // An override left undefined sets nothing, unless the setting may be unset.
      if (value === undefined && !entry.accepts(undefined)) continue;
      if (!entry.accepts(value))
        throw new ConfigError(`override ${prefix}${key} is not a value of ${entry.variable}`);
      merged[key] = value;
    } else {
      merged[key] = overlay(
        entry,
        values[key] as Record<string, unknown>,
        value as Record<string, unknown>,
        `${prefix}${key}.`,
      );
    }
  }
  return merged;
}

export function loadConfig(env: Env = {}, overrides: ConfigOverrides = {}): Config {
  const merged = overlay(SETTINGS, readAll(SETTINGS, env), overrides) as unknown as Config;
  if (merged.databaseReplicaUrls.length > 0 && merged.databaseUrl === undefined) {
    throw new ConfigError(
      'DATABASE_REPLICA_URLS needs DATABASE_URL: read replicas are PostgreSQL streaming replicas, and the embedded database has none',
    );
  }
  return deepFreeze(merged);
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) {
    // Byte arrays (keys) cannot be frozen; nothing hands them out for writing.
    if (inner && typeof inner === 'object' && !ArrayBuffer.isView(inner)) deepFreeze(inner);
  }
  return Object.freeze(value);
}
