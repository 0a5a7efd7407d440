/**
 * PostGraphile v4 on wfapi's tables: the server a user would pick instead of wfapi, run as its own
 * process beside it by bench/postgraphile.ts (`node --import tsx bench/lib/postgraphile-server.ts
 * --port N`, DATABASE_URL in the environment). It is installed apart, in bench/postgraphile/
 * (`npm install --prefix bench/postgraphile`), because PostGraphile v4 needs graphql 15 and
 * wfapi runs graphql 16: two copies of graphql in one tree break PostGraphile's schema.
 *
 * Configured as its documentation recommends for production, and as fairly as wfapi runs: the
 * same pool size (16) and session settings (JIT off), no query log, no GraphiQL, no mutations,
 * no schema watching; the connection-filter plugin for time windows, and one smart tag declaring
 * executions.workflow_uuid -> workflows.uuid (the tables have no foreign key) so that a workflow
 * can count its executions and an execution can name its workflow. No authentication, rate limit
 * or query limits: each request names its organization itself (`condition: {organizationId}`).
 */
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

/** Resolves from PostGraphile's own install, never from wfapi's node_modules. */
const require = createRequire(new URL('../postgraphile/package.json', import.meta.url));

const { values: args } = parseArgs({ options: { port: { type: 'string', default: '4760' } } });
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');

const { postgraphile } = require('postgraphile');
const ConnectionFilterPlugin = require('postgraphile-plugin-connection-filter');
const { makeJSONPgSmartTagsPlugin } = require('graphile-utils');
const { NodePlugin } = require('graphile-build');
const { Pool } = require('pg');

const pool = new Pool({ connectionString: databaseUrl, max: 16, options: '-c jit=off' });
pool.on('error', () => {});

const smartTags = makeJSONPgSmartTagsPlugin({
  version: 1,
  config: {
    class: { executions: { tags: { foreignKey: '(workflow_uuid) references workflows (uuid)' } } },
  },
});

const middleware = postgraphile(pool, 'public', {
  appendPlugins: [ConnectionFilterPlugin, smartTags],
  // No Relay global ids: wfapi has none, and execution_logs.node_id would clash with `nodeId`.
  skipPlugins: [NodePlugin],
  graphileBuildOptions: { connectionFilterRelations: false },
  disableDefaultMutations: true,
  disableQueryLog: true,
  dynamicJson: true,
  enableQueryBatching: false,
  graphiql: false,
  ignoreRBAC: true,
  legacyRelations: 'omit',
  retryOnInitFail: false,
  setofFunctionsContainNulls: false,
  // executions (and its logs and events) are partitioned: expose the parent, not each partition.
  usePartitionedParent: true,
  watchPg: false,
});

const server = createServer((request, response) => {
  if (request.url === '/readyz') {
    pool.query('select 1').then(
      () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}'),
      () => response.writeHead(503).end(),
    );
    return;
  }
  middleware(request, response);
});
server.keepAliveTimeout = 5_000;
server.listen(Number(args.port), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
