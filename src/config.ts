import type { SchemaKind } from './modules/api-module.js';

/**
 * Configuration is read once, from the environment and explicit overrides (CLI flags, tests),
 * validated and frozen. Nothing below this file reads `process.env`.
 */

export interface RateLimitConfig {
  /** Bucket size: the burst a caller may send at once. */
  readonly burst: number;
  /** Tokens added per second: the sustained request rate. */
  readonly perSecond: number;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  /** PostgreSQL connection string; when absent the embedded database in `dataDir` is used. */
  readonly databaseUrl: string | undefined;
  /**
   * Streaming replicas of `databaseUrl` that answer `/graphql` reads (PostgreSQL only); empty:
   * the primary answers everything. See src/db/replicas.
   */
  readonly databaseReplicaUrls: readonly string[];
  /** A replica further behind the primary than this is skipped until it catches up. */
  readonly replicaMaxLagMs: number;
  /** Directory of the embedded database; `memory://` keeps it in memory (tests). */
  readonly dataDir: string;
  readonly dbPoolSize: number;
  /** Name (prepare once per connection) the parameterised statements sent to PostgreSQL. */
  readonly dbPreparedStatements: boolean;
  readonly adminToken: string | undefined;
  readonly ingestToken: string | undefined;
  readonly redisUrl: string | undefined;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly limits: {
    readonly maxDepth: number;
    /** Fields of an operation once its fragments are expanded. */
    readonly maxFields: number;
    /** Fragment spreads met while expanding an operation. */
    readonly maxSpreads: number;
    /** Comparisons field merging may need (pairs of same-named fields weighed by size). */
    readonly maxMergeWork: number;
    readonly maxAliases: number;
    readonly maxTokens: number;
    /** Estimated bytes of parsed and compiled documents kept, per endpoint. */
    readonly documentCacheBytes: number;
    readonly maxBodyBytes: number;
    readonly requestTimeoutMs: number;
    readonly ingestMaxBodyBytes: number;
    /** NDJSON a gzip `/ingest` body may decompress to (besides ingestMaxBodyBytes). */
    readonly ingestMaxDecompressedBytes: number;
    /** How many times its compressed size a gzip `/ingest` body may decompress to. */
    readonly ingestMaxGzipRatio: number;
    readonly ingestBatchSize: number;
    /**
     * Database statements one organization's `/graphql` requests run at once; the next wait
     * their turn, so one key cannot take the pool or the embedded database from the others.
     * Unset: 2 on PostgreSQL, 1 on the embedded database (one connection).
     */
    readonly dbConcurrencyPerOrganization: number | undefined;
    /**
     * Bytes of log text one `/graphql` answer may carry; a log read past it is refused before it
     * is read, naming the paged ways to read the lines.
     */
    readonly maxAnswerBytes: number;
  };
  /** Per API key. */
  readonly rateLimit: RateLimitConfig;
  /** Per client address, charged only by failed authentication. */
  readonly authFailureLimit: RateLimitConfig;
  /** Connection caps and the timeouts of slow clients (see src/http/connection-limits.ts). */
  readonly connections: {
    readonly maxConnections: number;
    readonly maxConnectionsPerAddress: number;
    readonly headersTimeoutMs: number;
    readonly bodyTimeoutMs: number;
    readonly keepAliveTimeoutMs: number;
    readonly ingestIdleTimeoutMs: number;
    /** On shutdown, how long an idle keep-alive connection stays open for a request on its way. */
    readonly drainIdleMs: number;
  };
  /** How long SIGTERM waits for in-flight requests before cutting their connections. */
  readonly shutdownGraceMs: number;
  /** How long /readyz waits for the database before answering 503. */
  readonly readyTimeoutMs: number;
  /** How long a key's credentials read for one request serve the next ones (0: read every time). */
  readonly authCacheMs: number;
  /** How often recorded key use is written to the database. */
  readonly keyUsageFlushMs: number;
  /** Honour X-Forwarded-For (only behind a trusted proxy). */
  readonly trustProxy: boolean;
  /** Browser origins allowed to call /graphql: `*` or a list. */
  readonly corsOrigins: '*' | readonly string[];
  /** The public schema served: the hosted platform's exactly, or extended with wfapi's insight. */
  readonly schema: SchemaKind;
  /** `POST /mcp`, the Model Context Protocol endpoint (contract section 8); see src/mcp. */
  readonly mcp: boolean;
  /** `GET /metrics` (contract section 5); see src/metrics. */
  readonly metrics: {
    /** Bearer token of `/metrics`; without one the route does not exist. */
    readonly token: string | undefined;
    /** Workflow label values per organization; the rest are summed under `workflow="other"`. */
    readonly maxWorkflows: number;
    /** How long a scrape waits for the platform metrics before serving the last ones read. */
    readonly platformTimeoutMs: number;
  };
  /** Time partitions of the raw tables and their retention (contract section 6; docs/partitions.md). */
  readonly partitions: {
    /** Raw rows are kept this many days, dropped a month partition at a time; absent: kept for ever. */
    readonly retentionDays: number | undefined;
    /** How often partitions are created ahead and retention applied. */
    readonly maintenanceMs: number;
  };
  /** `GET /events`, the live stream (contract section 5); see src/events. */
  readonly events: {
    /** Streams one API key may hold open on this server; the next is answered 429. */
    readonly maxStreamsPerKey: number;
    /** Interval of the comment line that keeps proxies from closing an idle stream. */
    readonly heartbeatMs: number;
    /** How often the server reads the change feed for all its open streams (one query). */
    readonly pollMs: number;
    /**
     * A change whose execution's latest time (finish, else start) is older than this when it is
     * recorded is history (a backfill): sent only to streams that ask for it (0: every change is live).
     */
    readonly liveWindowMs: number;
  };
  /** Ingestion through NATS JetStream (contract section 6); see src/ingest/nats-worker.ts. */
  readonly nats: {
    /** Server URL(s), comma-separated; `wfapi ingest-worker` needs it. */
    readonly url: string | undefined;
    /** Messages a worker pulls at once and commits together before it pulls again. */
    readonly batchMessages: number;
    /** How long JetStream waits for an acknowledgement before redelivering (the worker says it is still working meanwhile). */
    readonly ackWaitMs: number;
    /** Deliveries of a message that keeps failing (not for an unavailable database) before it goes to `wfapi.dead.<org>`. */
    readonly maxDeliveries: number;
  };
  /** Alert rules and their deliveries (contract section 5, "Push"); see src/alerts and docs/alerts.md. */
  readonly alerts: {
    /**
     * 32 bytes that encrypt the webhook signing secrets at rest. When unset they are derived from
     * the admin token (alert rules exist only with one), so every instance sharing it can sign.
     */
    readonly secretKey: Buffer | undefined;
    /** Allow receivers on loopback, private and link-local addresses (off: server-side request forgery). */
    readonly allowPrivate: boolean;
    /** Run the delivery worker and the rule timer in this process. */
    readonly worker: boolean;
    /** How often the worker looks for due deliveries (it is also woken by ingestion). */
    readonly pollMs: number;
    /** How often FAILURE_RATE and NO_EXECUTIONS rules are evaluated. */
    readonly evaluateMs: number;
    /** Time limit of one delivery attempt, connection to last byte. */
    readonly timeoutMs: number;
    /** Deliveries in flight at once, per process. */
    readonly concurrency: number;
    /** The first retry's delay; each next one doubles it (with jitter), up to an hour. */
    readonly retryBaseMs: number;
    /** How long a failing delivery is retried, from when it was queued (or redelivered), before it is given up. */
    readonly giveUpMs: number;
    /**
     * How often a firing ALERTMANAGER alert is posted again; each post ends (`endsAt`) four of
     * these later, so an Alertmanager that stops hearing from wfapi resolves it by itself.
     */
    readonly resendMs: number;
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;
export type ConfigOverrides = {
  [K in keyof Config]?: Config[K] extends object ? Partial<Config[K]> : Config[K];
};

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function optionalInt(env: Env, name: string, min: number, max: number): number | undefined {
  return str(env, name) === undefined ? undefined : int(env, name, 0, min, max);
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** A switch: `1`/`true` or `0`/`false`. */
function flag(env: Env, name: string): boolean {
  const raw = str(env, name);
  if (raw === undefined || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name} must be 1, true, 0 or false, got "${raw}"`);
}

/** 32 bytes given as 64 hex digits or base64. */
function key32(env: Env, name: string): Buffer | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (bytes.length !== 32) throw new ConfigError(`${name} must be 32 bytes as 64 hex digits or base64`);
  return bytes;
}

function str(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** A PostgreSQL connection URL: any other scheme (mysql://, a bare host) fails here, not at connect time. */
function postgresUrl<T extends string | undefined>(name: string, raw: T): T {
  if (raw !== undefined && !/^postgres(ql)?:\/\//i.test(raw)) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1];
    throw new ConfigError(
      `${name} must be a postgres:// or postgresql:// URL${scheme ? `, got a ${scheme}: URL` : ''}`,
    );
  }
  return raw;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const SCHEMA_KINDS = ['hosted', 'extended'] as const satisfies readonly SchemaKind[];

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = str(env, name) ?? fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

export function loadConfig(env: Env = {}, overrides: ConfigOverrides = {}): Config {
  const logLevel = str(env, 'WFAPI_LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`WFAPI_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const base: Config = {
    port: int(env, 'PORT', 4000, 0, 65535),
    host: str(env, 'HOST') ?? '127.0.0.1',
    databaseUrl: postgresUrl('DATABASE_URL', str(env, 'DATABASE_URL')),
    databaseReplicaUrls: list(str(env, 'DATABASE_REPLICA_URLS')).map((url) =>
      postgresUrl('DATABASE_REPLICA_URLS', url),
    ),
    replicaMaxLagMs: int(env, 'WFAPI_REPLICA_MAX_LAG_MS', 10_000, 0, 3_600_000),
    dataDir: str(env, 'WFAPI_DATA_DIR') ?? './.wfapi',
    dbPoolSize: int(env, 'WFAPI_DB_POOL_SIZE', 10, 1, 500),
    dbPreparedStatements: bool(env, 'WFAPI_DB_PREPARED_STATEMENTS', true),
    adminToken: str(env, 'WFAPI_ADMIN_TOKEN'),
    ingestToken: str(env, 'WFAPI_INGEST_TOKEN'),
    redisUrl: str(env, 'REDIS_URL'),
    logLevel: logLevel as Config['logLevel'],
    limits: {
      maxDepth: int(env, 'WFAPI_MAX_DEPTH', 10, 2, 100),
      maxFields: int(env, 'WFAPI_MAX_FIELDS', 1000, 10, 1_000_000),
      maxSpreads: int(env, 'WFAPI_MAX_SPREADS', 500, 1, 1_000_000),
      maxMergeWork: int(env, 'WFAPI_MAX_MERGE_WORK', 20_000, 100, 100_000_000),
      maxAliases: int(env, 'WFAPI_MAX_ALIASES', 30, 1, 1000),
      maxTokens: int(env, 'WFAPI_MAX_TOKENS', 2000, 100, 100000),
      documentCacheBytes: int(env, 'WFAPI_DOCUMENT_CACHE_BYTES', 32 * 1024 * 1024, 1_000_000, 2 ** 31),
      maxBodyBytes: int(env, 'WFAPI_MAX_BODY_BYTES', 100_000, 1000, 10_000_000),
      requestTimeoutMs: int(env, 'WFAPI_REQUEST_TIMEOUT_MS', 10_000, 10, 600_000),
      ingestMaxBodyBytes: int(env, 'WFAPI_INGEST_MAX_BYTES', 2 ** 31, 1000, Number.MAX_SAFE_INTEGER),
      ingestMaxDecompressedBytes: int(
        env,
        'WFAPI_INGEST_MAX_DECOMPRESSED_BYTES',
        256 * 2 ** 20,
        1000,
        Number.MAX_SAFE_INTEGER,
      ),
      ingestMaxGzipRatio: int(env, 'WFAPI_INGEST_MAX_GZIP_RATIO', 100, 2, 1_000_000),
      ingestBatchSize: int(env, 'WFAPI_INGEST_BATCH_SIZE', 5000, 1, 100_000),
      dbConcurrencyPerOrganization: optionalInt(env, 'WFAPI_DB_CONCURRENCY_PER_ORG', 1, 500),
      maxAnswerBytes: int(env, 'WFAPI_MAX_ANSWER_BYTES', 16 * 1024 * 1024, 1000, 2 ** 30),
    },
    rateLimit: {
      burst: int(env, 'WFAPI_RATE_LIMIT_BURST', 200, 1, 1_000_000),
      perSecond: int(env, 'WFAPI_RATE_LIMIT_PER_SECOND', 100, 1, 1_000_000),
    },
    authFailureLimit: {
      burst: int(env, 'WFAPI_AUTH_FAILURE_BURST', 20, 1, 1_000_000),
      perSecond: int(env, 'WFAPI_AUTH_FAILURE_PER_SECOND', 1, 1, 1_000_000),
    },
    connections: {
      maxConnections: int(env, 'WFAPI_MAX_CONNECTIONS', 1000, 1, 1_000_000),
      maxConnectionsPerAddress: int(env, 'WFAPI_MAX_CONNECTIONS_PER_ADDRESS', 100, 0, 1_000_000),
      headersTimeoutMs: int(env, 'WFAPI_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
      bodyTimeoutMs: int(env, 'WFAPI_BODY_TIMEOUT_MS', 10_000, 100, 600_000),
      keepAliveTimeoutMs: int(env, 'WFAPI_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
      ingestIdleTimeoutMs: int(env, 'WFAPI_INGEST_IDLE_TIMEOUT_MS', 30_000, 100, 3_600_000),
      drainIdleMs: int(env, 'WFAPI_DRAIN_IDLE_MS', 1000, 0, 600_000),
    },
    shutdownGraceMs: int(env, 'WFAPI_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    readyTimeoutMs: int(env, 'WFAPI_READY_TIMEOUT_MS', 1500, 10, 60_000),
    authCacheMs: int(env, 'WFAPI_AUTH_CACHE_MS', 1000, 0, 60_000),
    keyUsageFlushMs: int(env, 'WFAPI_KEY_USAGE_FLUSH_MS', 30_000, 10, 3_600_000),
    trustProxy: bool(env, 'WFAPI_TRUST_PROXY', false),
    corsOrigins: corsOrigins(str(env, 'WFAPI_CORS_ORIGINS') ?? '*'),
    schema: oneOf(env, 'WFAPI_SCHEMA', SCHEMA_KINDS, 'extended'),
    mcp: oneOf(env, 'WFAPI_MCP', ['on', 'off'], 'on') === 'on',
    metrics: {
      token: str(env, 'WFAPI_METRICS_TOKEN'),
      maxWorkflows: int(env, 'WFAPI_METRICS_MAX_WORKFLOWS', 500, 1, 100_000),
      platformTimeoutMs: int(env, 'WFAPI_METRICS_TIMEOUT_MS', 5000, 10, 600_000),
    },
    partitions: {
      retentionDays: optionalInt(env, 'WFAPI_RETENTION_DAYS', 1, 36_500),
      maintenanceMs: int(env, 'WFAPI_PARTITION_MAINTENANCE_MS', 3_600_000, 1000, 86_400_000),
    },
    events: {
      maxStreamsPerKey: int(env, 'WFAPI_SSE_MAX_STREAMS', 100, 1, 100_000),
      heartbeatMs: int(env, 'WFAPI_SSE_HEARTBEAT_MS', 15_000, 10, 600_000),
      pollMs: int(env, 'WFAPI_SSE_POLL_MS', 500, 10, 60_000),
      liveWindowMs: int(env, 'WFAPI_SSE_LIVE_WINDOW_MS', 24 * 3_600_000, 0, 365 * 24 * 3_600_000),
    },
    nats: {
      url: str(env, 'WFAPI_NATS_URL'),
      batchMessages: int(env, 'WFAPI_NATS_BATCH_MESSAGES', 20, 1, 10_000),
      ackWaitMs: int(env, 'WFAPI_NATS_ACK_WAIT_MS', 60_000, 1000, 3_600_000),
      maxDeliveries: int(env, 'WFAPI_NATS_MAX_DELIVERIES', 5, 1, 1000),
    },
    alerts: {
      secretKey: key32(env, 'WFAPI_ALERTS_SECRET_KEY'),
      allowPrivate: flag(env, 'WFAPI_ALERTS_ALLOW_PRIVATE'),
      worker: bool(env, 'WFAPI_ALERTS_WORKER', true),
      pollMs: int(env, 'WFAPI_ALERTS_POLL_MS', 1000, 10, 600_000),
      evaluateMs: int(env, 'WFAPI_ALERTS_EVALUATE_MS', 30_000, 100, 3_600_000),
      timeoutMs: int(env, 'WFAPI_ALERTS_TIMEOUT_MS', 10_000, 100, 600_000),
      concurrency: int(env, 'WFAPI_ALERTS_CONCURRENCY', 8, 1, 1000),
      retryBaseMs: int(env, 'WFAPI_ALERTS_RETRY_BASE_MS', 5000, 10, 3_600_000),
      giveUpMs: int(env, 'WFAPI_ALERTS_GIVE_UP_MS', 24 * 3_600_000, 100, 7 * 24 * 3_600_000),
      resendMs: int(env, 'WFAPI_ALERTS_RESEND_MS', 15 * 60_000, 100, 3_600_000),
    },
  };
  const merged = {
    ...base,
    ...overrides,
    limits: { ...base.limits, ...overrides.limits },
    rateLimit: { ...base.rateLimit, ...overrides.rateLimit },
    authFailureLimit: { ...base.authFailureLimit, ...overrides.authFailureLimit },
    connections: { ...base.connections, ...overrides.connections },
    metrics: { ...base.metrics, ...overrides.metrics },
    partitions: { ...base.partitions, ...overrides.partitions },
    events: { ...base.events, ...overrides.events },
    nats: { ...base.nats, ...overrides.nats },
    alerts: { ...base.alerts, ...overrides.alerts },
  } as Config;
  if (merged.databaseReplicaUrls.length > 0 && merged.databaseUrl === undefined) {
    throw new ConfigError(
      'DATABASE_REPLICA_URLS needs DATABASE_URL: read replicas are PostgreSQL streaming replicas, and the embedded database has none',
    );
  }
  return deepFreeze(merged);
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function corsOrigins(value: string): '*' | string[] {
  if (value === '*') return '*';
  const origins = value
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError(
        `WFAPI_CORS_ORIGINS must be * or a comma-separated list of origins, got "${origin}"`,
      );
    }
  }
  return origins;
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) {
    // Byte arrays (keys) cannot be frozen; nothing hands them out for writing.
    if (inner && typeof inner === 'object' && !ArrayBuffer.isView(inner)) deepFreeze(inner);
  }
  return Object.freeze(value);
}
