/**
 * Ingestion through NATS JetStream with one and two `wfapi ingest-worker` processes against one
 * streamed `POST /ingest`, side by side in one run: the same records (bench/lib/ingest-lines.ts:
 * executions, events and log lines, one dataset after the other), each measurement on a fresh
 * PostgreSQL database and a fresh nats-server, rounds rotating which goes first. A NATS figure is
 * records / wall time from the first publish to the last acknowledgement (every record committed
 * and durable); the records are published while the workers consume, 1000 lines a message.
 *
 *   node --import tsx bench/nats-ingest.ts [--rounds 3] [--executions 20000] [--events 20000] [--logs 40000]
 *
 * PostgreSQL only: two workers need a database both can reach (the embedded one has one owner).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { publishNdjson } from '../src/cli/commands/ingest/nats-publish.js';
import { INGEST_CONSUMER, INGEST_STREAM } from '../src/ingest/nats-jetstream.js';
import { ndjsonLines } from '../src/ingest/ndjson-lines.js';
import { startNatsServer } from '../test/harness/nats-server.js';
import { COMPILED_CLI, cleanEnv, ROOT, startWfapi, type WfapiProcess } from '../test/harness/process.js';
import {
  createOrganizationOver,
  eventLines,
  executionLines,
  ingestShape,
  logLines,
  scratchDatabase,
  streamIngest,
} from './lib/ingest-lines.js';
import { ServerProcess } from './lib/server-process.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    executions: { type: 'string', default: '20000' },
    events: { type: 'string', default: '20000' },
    logs: { type: 'string', default: '40000' },
  },
});
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TOKEN = 'bench-nats-token';
const COUNTS = { executions: Number(args.executions), events: Number(args.events), logs: Number(args.logs) };
const TOTAL = COUNTS.executions + COUNTS.events + COUNTS.logs;
type Mode = 'POST /ingest' | 'NATS, 1 worker' | 'NATS, 2 workers';
const MODES: readonly Mode[] = ['POST /ingest', 'NATS, 1 worker', 'NATS, 2 workers'];

function* allLines(organizationId: string): Generator<string> {
  const shape = ingestShape(organizationId, COUNTS.executions);
  yield* executionLines(shape, COUNTS.executions);
  yield* eventLines(shape, COUNTS.events);
  yield* logLines(shape, COUNTS.logs);
}

async function* asBytes(lines: Iterable<string>): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  let parts: string[] = [];
  for (const line of lines) {
    parts.push(line);
    if (parts.length === 1000) {
      yield encoder.encode(`${parts.join('\n')}\n`);
      parts = [];
    }
  }
  if (parts.length) yield encoder.encode(`${parts.join('\n')}\n`);
}

/** Records a second for one mode, on its own fresh database (and nats-server). */
async function measure(mode: Mode, port: number): Promise<number> {
  const database = await scratchDatabase('postgres', ADMIN_URL);
  try {
    const env = {
      ...database.env,
      WFAPI_INGEST_TOKEN: TOKEN,
      WFAPI_ADMIN_TOKEN: TOKEN,
      WFAPI_DB_POOL_SIZE: '8',
    };
    const server = await ServerProcess.start(env, port);
    try {
      const organizationId = await createOrganizationOver(server.url, TOKEN);
      if (mode === 'POST /ingest')
        return await streamIngest(server.url, TOKEN, allLines(organizationId), TOTAL);
      const nats = await startNatsServer();
      const workers: WfapiProcess[] = [];
      try {
        for (let i = 0; i < (mode === 'NATS, 1 worker' ? 1 : 2); i++) {
          const worker = startWfapi(['ingest-worker'], {
            cli: COMPILED_CLI,
            env: cleanEnv({ ...database.env, WFAPI_NATS_URL: nats.url, WFAPI_DB_POOL_SIZE: '4' }),
          });
          await worker.waitFor(/consuming WFAPI_INGEST/, 60_000, 'stderr');
          workers.push(worker);
        }
        const nc = await connect({ servers: nats.url });
        const jsm = await jetstreamManager(nc);
        const started = performance.now();
        const published = await publishNdjson(
          { natsUrl: nats.url, organizationId, chunkLines: 1000 },
          ndjsonLines(asBytes(allLines(organizationId))),
        );
        for (;;) {
          const info = await jsm.consumers.info(INGEST_STREAM, INGEST_CONSUMER);
          if (info.ack_floor.stream_seq >= published.messages && info.num_ack_pending === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const seconds = (performance.now() - started) / 1000;
        await nc.close();
        return TOTAL / seconds;
      } finally {
        for (const worker of workers) worker.child.kill('SIGTERM');
        await Promise.all(workers.map((worker) => worker.exited));
        await nats.stop();
      }
    } finally {
      await server.stop();
    }
  } finally {
    await database.cleanup();
  }
}

const figures = new Map<Mode, number[]>(MODES.map((mode) => [mode, []]));
const rounds = Number(args.rounds);
for (let round = 0; round < rounds; round++) {
  const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
  for (const mode of order) {
    const perSecond = await measure(mode, 4713);
    figures.get(mode)!.push(perSecond);
    process.stderr.write(`round ${round + 1}: ${mode} ${Math.round(perSecond)} records/s\n`);
  }
}

const http = median(figures.get('POST /ingest')!);
const command = `node --import tsx bench/nats-ingest.ts --rounds ${rounds} --executions ${COUNTS.executions} --events ${COUNTS.events} --logs ${COUNTS.logs}`;
const lines = [
  `command: ${command}`,
  `Node ${process.version}, PostgreSQL, ${TOTAL} records (${COUNTS.executions} executions, ${COUNTS.events} events, ${COUNTS.logs} log lines); medians of ${rounds} rotating rounds`,
  '',
  '| path | records/s (median) | runs | against POST /ingest |',
  '| --- | ---: | --- | ---: |',
  ...MODES.map((mode) => {
    const runs = figures.get(mode)!;
    return `| ${mode} | ${Math.round(median(runs))} | ${runs.map(Math.round).join(', ')} | ${(median(runs) / http).toFixed(2)} |`;
  }),
  '',
  `two workers / one worker: ${(median(figures.get('NATS, 2 workers')!) / median(figures.get('NATS, 1 worker')!)).toFixed(2)}`,
];
console.log(lines.join('\n'));
writeFileSync(join(ROOT, 'bench/results/nats-ingest.md'), `${lines.join('\n')}\n`);
