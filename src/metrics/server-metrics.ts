import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Registry } from 'prom-client';
import type { Database } from '../db/database.js';
import type { DatabaseStatus } from '../db/replicas/read-router.js';
import type { GraphqlOutcome } from '../graphql/execute-request.js';
import type { IngestBatchOutcome } from '../ingest/ingest-stream.js';
import type { WindowCache } from '../rollups/window-cache.js';

/** Request and operation durations, in seconds: from a cached read to a request's time limit. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The label of requests that matched no route: their paths are the caller's, so never a label. */
const UNMATCHED_ROUTE = 'unmatched';

/** Lines that never became a record (not JSON, no known type) have no type of their own. */
const UNPARSED = 'unparsed';

/**
 * The server's own metrics (contract section 5): HTTP requests, GraphQL operations and errors,
 * the database pool, ingestion, refused callers and the process. Every label takes its values
 * from a fixed set (routes as declared, status codes, error codes of the registry, root fields
 * of the schema, record types), never from what a caller sends, so their number is bounded.
 */
export class ServerMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly requestSeconds: Histogram<'method' | 'route'>;
  private readonly authFailures: Counter<'route'>;
  private readonly rateLimited: Counter<'route' | 'policy'>;
  private readonly operationSeconds: Histogram<'endpoint' | 'root_field'>;
  private readonly graphqlErrors: Counter<'endpoint' | 'code'>;
  private readonly ingested: Counter<'type' | 'result'>;

  /** `replicas`: each database's state (src/db/replicas), when read replicas are configured. */
  constructor(
    registry: Registry,
    db: Database,
    replicas?: () => readonly DatabaseStatus[],
    windowCache?: WindowCache,
  ) {
    const registers = [registry];
    collectDefaultMetrics({ register: registry });
    this.requests = new Counter({
      name: 'wfapi_http_requests_total',
      help: 'HTTP requests answered, by method, route (as declared) and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'wfapi_http_request_duration_seconds',
      help: 'Time from the arrival of a request to the end of its answer, by method and route.',
      labelNames: ['method', 'route'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.authFailures = new Counter({
      name: 'wfapi_auth_failures_total',
      help: 'Requests refused with 401 (missing or wrong API key or operator token), by route.',
      labelNames: ['route'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'wfapi_rate_limited_total',
      help: 'Requests refused with 429, by route and policy (per-key, or auth-failure for addresses that failed authentication too often).',
      labelNames: ['route', 'policy'],
      registers,
    });
    this.operationSeconds = new Histogram({
      name: 'wfapi_graphql_operation_duration_seconds',
      help: 'Duration of executed GraphQL operations, by endpoint and root field (an operation with several root fields counts under each).',
      labelNames: ['endpoint', 'root_field'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.graphqlErrors = new Counter({
      name: 'wfapi_graphql_errors_total',
      help: 'Errors in GraphQL answers, by endpoint and extensions.code.',
      labelNames: ['endpoint', 'code'],
      registers,
    });
    this.ingested = new Counter({
      name: 'wfapi_ingest_records_total',
      help: `Ingested NDJSON lines by record type (${UNPARSED} for lines with no valid type) and result (accepted or rejected).`,
      labelNames: ['type', 'result'],
      registers,
    });
    const pool = db.poolUse;
    if (pool) {
      new Gauge({
        name: 'wfapi_db_pool_connections',
        help: 'PostgreSQL pool connections by state: open (idle or in use), idle, and max (the pool size).',
        labelNames: ['state'],
        registers,
        collect() {
          const use = pool();
          this.set({ state: 'open' }, use.open);
          this.set({ state: 'idle' }, use.idle);
          this.set({ state: 'max' }, use.max);
        },
      });
      new Gauge({
        name: 'wfapi_db_pool_waiting',
        help: 'Queries waiting for a PostgreSQL pool connection.',
        registers,
        collect() {
          this.set(pool().waiting);
        },
      });
    }
    if (windowCache) {
      new Counter({
        name: 'wfapi_rollup_cache_reads_total',
        help: "Pieces of rollup windows looked up in the server's cache, by result: hit (unchanged since kept, not read again) or miss.",
        labelNames: ['result'],
        registers,
        collect() {
          const use = windowCache.use();
          this.reset();
          this.inc({ result: 'hit' }, use.hits);
          this.inc({ result: 'miss' }, use.misses);
        },
      });
      new Gauge({
        name: 'wfapi_rollup_cache_bytes',
        help: 'Memory the rollup answers kept by the server take, estimated (at most WFAPI_ROLLUP_CACHE_MB).',
        registers,
        collect() {
          this.set(windowCache.use().bytes);
        },
      });
    }
    if (replicas) {
      const ofReplicas = () => replicas().filter((database) => database.role === 'replica');
      new Gauge({
        name: 'wfapi_db_replica_lag_seconds',
        help: 'How far each read replica was behind the primary at its last check (absent while unknown).',
        labelNames: ['replica'],
        registers,
        collect() {
          this.reset();
          for (const replica of ofReplicas()) {
            if (typeof replica.lagMs === 'number')
              this.set({ replica: replica.address }, replica.lagMs / 1000);
          }
        },
      });
      new Gauge({
        name: 'wfapi_db_replica_in_use',
        help: 'Whether each read replica answers reads (1) or is skipped (0).',
        labelNames: ['replica'],
        registers,
        collect() {
          for (const replica of ofReplicas()) this.set({ replica: replica.address }, replica.inUse ? 1 : 0);
        },
      });
    }
  }

  /** Counts every answer of `server`: by route and status, 401s and 429s. */
  observeRequests(server: FastifyInstance): void {
    server.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      const status = reply.statusCode;
      this.requests.inc({ method: request.method, route, status: String(status) });
      this.requestSeconds.observe({ method: request.method, route }, reply.elapsedTime / 1000);
      if (status === 401) this.authFailures.inc({ route });
      if (status === 429)
        this.rateLimited.inc({ route, policy: policyOf(reply.getHeader('ratelimit-policy')) });
      done();
    });
  }

  /** An observer for `executeGraphqlRequest` of one endpoint (`/graphql` or `/admin/graphql`). */
  graphqlObserver(endpoint: string): (outcome: GraphqlOutcome) => void {
    return (outcome) => {
      for (const rootField of outcome.rootFields) {
        this.operationSeconds.observe({ endpoint, root_field: rootField }, outcome.seconds);
      }
      for (const code of outcome.errorCodes) this.graphqlErrors.inc({ endpoint, code });
    };
  }

  /** Counts one committed ingestion batch. */
  readonly ingestBatch = (outcome: IngestBatchOutcome): void => {
    const rejectedLines = new Set(outcome.rejected.map((rejection) => rejection.line));
    const accepted = new Map<string, number>();
    const rejected = new Map<string, number>();
    for (const { line, record } of outcome.records) {
      const counts = rejectedLines.delete(line) ? rejected : accepted;
      counts.set(record.type, (counts.get(record.type) ?? 0) + 1);
    }
    // The rejections left are lines that never became a record.
    if (rejectedLines.size > 0) rejected.set(UNPARSED, rejectedLines.size);
    for (const [type, n] of accepted) this.ingested.inc({ type, result: 'accepted' }, n);
    for (const [type, n] of rejected) this.ingested.inc({ type, result: 'rejected' }, n);
  };
}

/** `"per-key";q=200;w=2` -> `per-key`: the policies are the server's own names. */
function policyOf(header: unknown): string {
  const match = typeof header === 'string' ? /^"([a-z-]+)"/.exec(header) : null;
  return match?.[1] ?? 'other';
}
