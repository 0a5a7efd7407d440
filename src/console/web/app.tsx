import { useEffect, useMemo, useState } from 'preact/hooks';
import { AuthenticationError, createClient, describeError } from './api.js';
import { forgetKey, storedKey, storeKey, takeKeyFromFragment } from './key-store.js';
import { Link, Time } from './parts/basics.js';
import { href, useRoute, type ViewName } from './route.js';
import { type Session, SessionContext } from './session.js';
import { formatAge, keepWindow, setTimesInUtc, timesInUtc } from './time.js';
import { CapabilitiesView } from './views/capabilities.js';
import { ErrorsView } from './views/errors.js';
import { ExecutionView } from './views/execution.js';
import { LogsView } from './views/logs.js';
import { OverviewView } from './views/overview.js';
import { WorkflowView } from './views/workflow.js';
import { WorkflowsView } from './views/workflows.js';

/** Views refresh on their own this often, unless paused. */
const REFRESH_MS = 15_000;
/** Data older than this shows the freshness badge as stale. */
const STALE_MS = 5 * 60_000;

takeKeyFromFragment();

/**
 * Each table cell carries its column's heading as `data-label`, which the phone layout shows in
 * front of the value once a table is laid out as cards. Kept up as views render.
 */
function labelCells(root: Element): void {
  for (const table of Array.from(root.querySelectorAll('table.data'))) {
    const headings = Array.from(table.querySelectorAll('thead th')).map((th) =>
      (th.textContent ?? '').trim(),
    );
    for (const row of Array.from(table.querySelectorAll('tbody tr'))) {
      Array.from(row.children).forEach((cell, i) => {
        const heading = headings[i];
        if (heading && cell.getAttribute('data-label') !== heading) cell.setAttribute('data-label', heading);
      });
    }
  }
}
const root = document.getElementById('console');
if (root) new MutationObserver(() => labelCells(root)).observe(root, { childList: true, subtree: true });

export function App() {
  const [key, setKey] = useState(storedKey);
  const [refusal, setRefusal] = useState<string | undefined>(undefined);
  if (!key) {
    return (
      <KeyForm
        message={refusal}
        onKey={(k) => {
          storeKey(k);
          setRefusal(undefined);
          setKey(k);
        }}
      />
    );
  }
  return (
    <SignedIn
      apiKey={key}
      onRefused={(message) => {
        forgetKey();
        setRefusal(message);
        setKey(undefined);
      }}
    />
  );
}

/**
 * Asks for a key once; it is checked with one request (getOrganization) before it is kept, so a
 * bad key is refused here with the API's own message.
 */
function KeyForm({ message, onKey }: { message: string | undefined; onKey: (key: string) => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState(message);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const key = value.trim();
    if (!key) {
      setError('Paste an API key first.');
      return;
    }
    setBusy(true);
    try {
      await createClient(key, () => undefined).getOrganization();
      onKey(key);
    } catch (failure) {
      setError(
        failure instanceof AuthenticationError
          ? `The API refused the key: ${failure.message}`
          : describeError(failure),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="key-page">
      <form class="card key-form" onSubmit={submit}>
        <h1>wfapi console</h1>
        <p>
          Paste your API key. It stays in this tab only (session storage) and is sent to this server's{' '}
          <code>/graphql</code> and nowhere else.
        </p>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          aria-describedby={error ? 'key-error' : undefined}
        />
        {error && (
          <p id="key-error" class="error-note" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Open the console'}
        </button>
        <p class="muted">
          <code>npm start</code> prints a link that signs in with the demo key. GraphiQL is at{' '}
          <a href="/graphql">/graphql</a>.
        </p>
      </form>
    </main>
  );
}

const NAV: ReadonlyArray<[ViewName, string]> = [
  ['overview', 'Overview'],
  ['workflows', 'Workflows'],
  ['errors', 'Errors'],
  ['capabilities', 'Capabilities'],
  ['logs', 'Log search'],
];

const TITLES: Record<ViewName, string> = {
  overview: 'Overview',
  workflows: 'Workflows',
  workflow: 'Workflow',
  execution: 'Execution',
  errors: 'Errors',
  logs: 'Log search',
  capabilities: 'Capabilities',
};

/** What `/readyz` says of a history still loading in the background (the demo's month). */
interface HistoryLoad {
  readonly loading: boolean;
  readonly completeFrom: string | null;
}

/**
 * Asks `/readyz` whether history is still loading, at the start and at each refresh while it is;
 * once the answer has no history or says it is loaded, it is not asked again.
 */
function useHistoryLoad(tick: number): HistoryLoad | undefined {
  const [history, setHistory] = useState<HistoryLoad | undefined>(undefined);
  const [settled, setSettled] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: tick asks again
  useEffect(() => {
    if (settled) return;
    let current = true;
    fetch(new URL('/readyz', location.href), { headers: { accept: 'application/json' } })
      .then((response) => response.json())
      .then((body: { history?: HistoryLoad } | null) => {
        if (!current) return;
        const load = body?.history;
        setHistory(load);
        if (!load?.loading) setSettled(true);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [tick, settled]);
  return history;
}

function SignedIn({ apiKey, onRefused }: { apiKey: string; onRefused: (message: string) => void }) {
  const [dataAsOf, setDataAsOf] = useState<string | undefined>(undefined);
  const client = useMemo(() => createClient(apiKey, setDataAsOf), [apiKey]);
  const [paused, setPaused] = useState(false);
  const [tick, setTick] = useState(0);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (paused) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') setTick((t) => t + 1);
      setNow(Date.now());
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [paused]);
  const session: Session = useMemo(() => ({ client, tick, refuseKey: onRefused }), [client, tick, onRefused]);
  const route = useRoute();
  const history = useHistoryLoad(tick);
  const [utc, setUtc] = useState(timesInUtc);
  useEffect(() => {
    document.title = `${TITLES[route.view]} · wfapi console`;
  }, [route.view]);
  const current = route.view === 'workflow' || route.view === 'execution' ? 'workflows' : route.view;
  const stale = dataAsOf !== undefined && now - Date.parse(dataAsOf) > STALE_MS;
  return (
    <SessionContext.Provider value={session}>
      <header class="top">
        <span class="brand">wfapi</span>
        <nav aria-label="Views">
          {NAV.map(([view, label]) => (
            <Link
              key={view}
              href={href(view, keepWindow(route.params))}
              aria-current={current === view ? 'page' : undefined}
            >
              {label}
            </Link>
          ))}
        </nav>
        <span class="spacer" />
        {dataAsOf && (
          <span class={`badge ${stale ? 'stale' : 'fresh'}`} data-freshness={dataAsOf}>
            data as of <Time iso={dataAsOf} /> ({formatAge(dataAsOf, now)} ago)
          </span>
        )}
        <button
          type="button"
          class="quiet-button"
          data-toggle="utc"
          title={utc ? 'Times are shown in UTC: show them in your time zone' : 'Show times in UTC'}
          onClick={() => {
            setTimesInUtc(!utc);
            setUtc(!utc);
          }}
          aria-pressed={utc}
        >
          UTC
        </button>
        <button type="button" class="quiet-button" onClick={() => setPaused((p) => !p)} aria-pressed={paused}>
          {paused ? 'Resume refresh' : 'Pause refresh'}
        </button>
        <button type="button" class="quiet-button" onClick={() => onRefused('Signed out.')}>
          Sign out
        </button>
      </header>
      {history?.loading && (
        <p class="history-note" role="status" data-notice="history-loading">
          The demo's history is still loading in the background, newest first
          {history.completeFrom ? (
            <>
              : data is complete from <Time iso={history.completeFrom} /> on; older figures grow as it
              arrives.
            </>
          ) : (
            '.'
          )}
        </p>
      )}
      <main class="page" key={route.view}>
        {route.view === 'overview' && <OverviewView params={route.params} />}
        {route.view === 'workflows' && <WorkflowsView params={route.params} />}
        {route.view === 'workflow' && <WorkflowView params={route.params} />}
        {route.view === 'execution' && <ExecutionView params={route.params} />}
        {route.view === 'errors' && <ErrorsView params={route.params} />}
        {route.view === 'logs' && <LogsView params={route.params} />}
        {route.view === 'capabilities' && <CapabilitiesView params={route.params} />}
      </main>
    </SessionContext.Provider>
  );
}
