import { type App, buildApp, type HistoryLoad } from '../../../app.js';
import { type Config, ConfigError, loadConfig } from '../../../config.js';
import type { Database } from '../../../db/database.js';
import { type EmbeddedDatabase, openEmbedded } from '../../../db/embedded/embedded-database.js';
import { migrated } from '../../../db/open.js';
import { recountRollups } from '../../../ingest/recount.js';
import { DAY, HOUR } from '../../../lib/time.js';
import {
  createWorld,
  type Detail,
  emptyCounts,
  liveBatches,
  organizationProfile,
  type SimulationPlan,
} from '../../../simulate/index.js';
import { CliError, EXIT } from '../../exit-codes.js';
import { plural } from '../../render/plural.js';
import { oneLine, serveConfig } from '../serve/main.js';
import { checkPortFree, listenFailure } from '../serve/port-check.js';
import { DEMO_RULE_NAME, type DemoReceiver, ensureDemoRule, startDemoReceiver } from './alert-receiver.js';
import { loadInBackground } from './background-load.js';
import { renderBanner } from './banner.js';
import { addInterval, type Interval, splitAt } from './coverage.js';
import { loadWindows, planLoad, storeRecords } from './loader.js';
import { ensureDemoObjectives } from './objectives.js';
import { type DemoState, newToken, readState, statePath, writeState } from './state.js';
import { createDemoTenant, workingKey } from './tenant.js';

export interface DemoFlags {
  port?: string | undefined;
  host?: string | undefined;
  /** The size of the simulated month, used on the first start only. */
  seed: string;
  days: number;
  workflows: number;
  executions: number;
  live: boolean;
}

export interface DemoIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Aborts when the demo should stop (SIGINT, SIGTERM). */
  readonly signal: AbortSignal;
}

/** Executions of the last days get every node's log lines; older ones a few (a faster first start). */
const FULL_DETAIL_DAYS = 2;
/**
 * What loads before the banner: the last hour (some 140 executions of the default month, a
 * second or two). The last day took 23 to 139 s on a busy machine; the rest loads in the background.
 */
const BEFORE_BANNER = HOUR;
/** The state file is rewritten at most this often while live data flows. */
const SAVE_EVERY_MS = 10_000;

const count = (n: number) => n.toLocaleString('en-US');

function demoConfig(
  env: Readonly<Record<string, string | undefined>>,
  flags: DemoFlags,
  state?: DemoState,
): Config {
  try {
    const base = serveConfig(env, flags);
    // The demo always runs on the embedded database, quietly unless a log level is asked for.
    return loadConfig(
      { ...env, WFAPI_LOG_LEVEL: env.WFAPI_LOG_LEVEL ?? 'warn', PORT: String(base.port), HOST: base.host },
      {
        databaseUrl: undefined,
        adminToken: base.adminToken ?? state?.adminToken,
        ingestToken: base.ingestToken ?? state?.ingestToken,
        // The demo's own webhook receiver listens on loopback.
        alerts: { allowPrivate: true },
      },
    );
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(oneLine(error), EXIT.USAGE);
    throw error;
  }
}

/**
 * Runs the demo until the signal aborts: the embedded database in the data directory, a demo
 * organization with a lifelike month loaded on the first start (the last day before the server
 * answers, older days in the background, newest first), reused and brought up to date on later
 * starts, and new executions as they happen.
 */
export async function demo(env: Readonly<Record<string, string | undefined>>, flags: DemoFlags, io: DemoIo) {
  const startedAt = performance.now();
  const say = (line: string) => io.stderr.write(`${line}\n`);
  let config = demoConfig(env, flags);
  if (config.dataDir.startsWith('memory://')) {
    throw new CliError('the demo keeps its data on disk: set WFAPI_DATA_DIR to a directory', EXIT.USAGE);
  }
  await checkPortFree(config.host, config.port);
  let db: EmbeddedDatabase;
  try {
    db = await migrated(await openEmbedded(config.dataDir), { recountRollups });
  } catch (error) {
    throw new CliError(`cannot open the embedded database in ${config.dataDir}: ${oneLine(error)}`);
  }
  let app: App | undefined;
  let receiver: DemoReceiver | undefined;
  try {
    const now = Date.now();
    const { state, firstStart, keyProblem } = await prepareState(db, config.dataDir, flags, now, say);
    config = demoConfig(env, flags, state);
    const profile = organizationProfile(state.seed);
    const plan: SimulationPlan = {
      seed: state.seed,
      organizationId: state.organizationId,
      workflows: state.workflows,
      start: state.start,
      days: state.days,
      executions: state.executions,
    };
    const world = createWorld(plan);
    const detail = (started: number): Detail => (started >= state.fullDetailFrom ? 'full' : 'compact');
    let lastSave = Date.now();
    const markLoaded = (window: Interval, force = false) => {
      state.loaded = addInterval(state.loaded, window);
      if (force || Date.now() - lastSave >= SAVE_EVERY_MS) {
        writeState(config.dataDir, state);
        lastSave = Date.now();
      }
    };

    // Before the load: the failures of its last hour are delivered as soon as the server runs.
    receiver = await startDemoReceiver(config.host);
    await ensureDemoRule(db, config, state.organizationId, receiver.url);
    const load = planLoad(world, state, now);
    // The catalogue first (every registration and deployment: a few hundred records), so that
    // workflows are complete while their executions load newest first.
    await storeRecords(db, load.catalogue, emptyCounts());
    await ensureDemoObjectives(db, state.organizationId);
    const windows = load.windows;
    const [urgent, later] = splitAt(windows, now - BEFORE_BANNER);
    const loadOptions = { signal: io.signal, detail, onWindow: (w: Interval) => markLoaded(w, true) };
    if (urgent.length > 0)
      say(
        firstStart ? 'loading the last hour of the demo month...' : 'filling the gap since the last run...',
      );
    const first = await loadWindows(db, world, urgent, loadOptions);
    if (io.signal.aborted) return;

    // What /readyz says of the month while its older days load (the console's notice).
    let loadingHistory = later.length > 0;
    const history = (): HistoryLoad => {
      const newest = state.loaded[state.loaded.length - 1];
      return { loading: loadingHistory, completeFrom: newest ? new Date(newest[0]).toISOString() : null };
    };
    app = await buildApp(config, { db, history });
    let url: string;
    try {
      url = await app.listen();
    } catch (error) {
      throw listenFailure(error, config.host, config.port);
    }
    const days = plural(state.days, 'day');
    io.stdout.write(
      renderBanner({
        url,
        organization: `${profile.displayName} (${state.organizationId})`,
        apiKey: state.apiKey,
        keyProblem,
        adminToken: config.adminToken ?? '',
        mcp: config.mcp,
        ingestToken: config.ingestToken ?? '',
        statePath: statePath(config.dataDir),
        alerts: {
          rule: DEMO_RULE_NAME,
          receiverUrl: receiver.url,
          command: `WFAPI_URL=${url} WFAPI_ADMIN_TOKEN=${config.adminToken ?? ''} wfapi alerts deliveries --org ${state.organizationId}`,
        },
        startupSeconds: (performance.now() - startedAt) / 1000,
        dataLines: [
          `data      ${state.workflows} workflows, about ${count(state.executions)} executions over ${days}, in ${config.dataDir}` +
            (firstStart
              ? ''
              : ` (reused; ${count(first.execution)} executions of the time since the last run added so far)`),
          later.length > 0
            ? `loading   older days in the background, newest first (${plural(later.length, 'window')}): they fill in over 10 to 30 minutes`
            : 'loading   complete',
          flags.live ? 'live      new executions arrive as they happen (every second)' : 'live      off',
        ],
      }),
    );

    const background = (async () => {
      if (later.length === 0) return;
      const loadStarted = performance.now();
      // On a thread of its own: the server answers while the older days load.
      const executions = await loadInBackground(db, plan, later, {
        signal: io.signal,
        fullDetailFrom: state.fullDetailFrom,
        onWindow: (w) => markLoaded(w, true),
      }).finally(() => {
        // Stored, or stopped by an error the demo reports: either way nothing more is coming.
        loadingHistory = false;
      });
      if (!io.signal.aborted) {
        say(
          `demo history complete: ${count(executions)} more executions loaded in ` +
            `${((performance.now() - loadStarted) / 1000).toFixed(1)} s`,
        );
      }
    })();
    const live = (async () => {
      if (!flags.live) return;
      const counts = emptyCounts();
      for await (const batch of liveBatches(world, now, { signal: io.signal, detail })) {
        await storeRecords(db, batch.records, counts);
        markLoaded([batch.after, batch.until]);
      }
    })();
    const report = (error: unknown) => say(`demo data could not be stored: ${oneLine(error)}`);
    await Promise.all([background.catch(report), live.catch(report), aborted(io.signal)]);
    writeState(config.dataDir, state);
  } finally {
    await app?.close().catch(() => {});
    await receiver?.close().catch(() => {});
    await db.close().catch(() => {});
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** The saved state, or a new one (demo organization, member, key, tokens) on the first start. */
async function prepareState(
  db: Database,
  dataDir: string,
  flags: DemoFlags,
  now: number,
  say: (line: string) => void,
): Promise<{ state: DemoState; firstStart: boolean; keyProblem: string | undefined }> {
  const saved = readState(dataDir);
  if (saved) {
    const key = await workingKey(db, saved.memberId, saved.apiKey);
    if (key.renewed) {
      say('the saved demo API key no longer works (revoked or expired): created a new one');
      saved.apiKey = key.apiKey;
      writeState(dataDir, saved);
    }
    return { state: saved, firstStart: false, keyProblem: key.problem };
  }
  const tenant = await createDemoTenant(db, organizationProfile(flags.seed));
  const state: DemoState = {
    seed: flags.seed,
    start: now - flags.days * DAY,
    days: flags.days,
    workflows: flags.workflows,
    executions: flags.executions,
    fullDetailFrom: now - FULL_DETAIL_DAYS * DAY,
    organizationId: tenant.organizationId,
    memberId: tenant.memberId,
    apiKey: tenant.apiKey,
    adminToken: newToken(),
    ingestToken: newToken(),
    loaded: [],
  };
  writeState(dataDir, state);
  return { state, firstStart: true, keyProblem: undefined };
}
