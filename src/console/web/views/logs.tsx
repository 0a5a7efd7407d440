import { ErrorNote, Link, Pager, Time } from '../parts/basics.js';
import { SearchBox } from '../parts/search-box.js';
import { WindowPicker } from '../parts/window-picker.js';
import { href, intParam, navigate } from '../route.js';
import { useLoad } from '../session.js';
import { formatCount, viewWindow } from '../time.js';

const PAGE_SIZE = 50;
/** The API searches for at least this many characters. */
const SHORTEST = 3;

/** The message with each case-insensitive occurrence of the term marked. */
export function Highlighted({ text, term }: { text: string; term: string }) {
  if (!term) return <>{text}</>;
  const parts: Array<string | { mark: string }> = [];
  const lower = text.toLowerCase();
  const needle = term.toLowerCase();
  let at = 0;
  for (let found = lower.indexOf(needle); found !== -1; found = lower.indexOf(needle, at)) {
    if (found > at) parts.push(text.slice(at, found));
    parts.push({ mark: text.slice(found, found + needle.length) });
    at = found + needle.length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return (
    <>
      {parts.map((part, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: the pieces of one message in order
        typeof part === 'string' ? part : <mark key={i}>{part.mark}</mark>,
      )}
    </>
  );
}

/** Log lines across executions (`searchExecutionLogs`), newest first, each linked to its execution. */
export function LogsView({ params }: { params: URLSearchParams }) {
  const window = viewWindow(params);
  const term = params.get('q') ?? '';
  const workflow = params.get('workflow') ?? '';
  const node = params.get('node') ?? '';
  const page = intParam(params, 'page', 0);
  const link = (change: Record<string, string | number | undefined>) =>
    href('logs', { ...window.params, q: term, workflow, node, page: page || undefined, ...change });
  const workflows = useLoad('logs:workflows', (client) => client.workflows({ page: { size: 100 } }));
  const searchable = term.trim().length >= SHORTEST;
  const { data, error, loading } = useLoad(
    `logs:${window.key}:${term}:${workflow}:${node}:${page}`,
    async (client) => {
      const { from, to } = window.range();
      if (!searchable) return { from, to, result: undefined };
      const result = await client.searchExecutionLogs({
        query: term.trim(),
        workflowUUID: workflow || undefined,
        nodeID: node || undefined,
        from,
        to,
        page: { number: page, size: PAGE_SIZE },
      });
      return { from, to, result };
    },
  );
  const result = data?.result;
  return (
    <div data-view="logs" data-from={data?.from} data-to={data?.to} data-complete={data ? 'true' : undefined}>
      <div class="view-head">
        <h1>Log search</h1>
        <WindowPicker view="logs" params={params} current={window.name} />
      </div>
      <search>
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <SearchBox
            label="Text in messages"
            value={term}
            placeholder="at least 3 characters"
            autoFocus
            onChange={(q) => navigate(link({ q, page: undefined }), { replace: true })}
          />
          <label>
            <span>Workflow</span>
            <select
              value={workflow}
              onChange={(e) =>
                navigate(link({ workflow: (e.target as HTMLSelectElement).value, page: undefined }))
              }
            >
              <option value="">all workflows</option>
              {(workflows.data?.data ?? []).map((w) => (
                <option key={w.uuid} value={w.uuid}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
          <SearchBox
            label="Node id"
            value={node}
            onChange={(n) => navigate(link({ node: n, page: undefined }), { replace: true })}
          />
          {(term || workflow || node) && (
            <Link href={href('logs', window.params)} class="quiet-button">
              Clear
            </Link>
          )}
        </form>
      </search>
      <ErrorNote message={error} />
      {!searchable && (
        <p class="muted empty">
          Type at least {SHORTEST} characters to search the log lines of every execution in the window
          (case-insensitive, newest first).
        </p>
      )}
      {searchable && !data && loading && <p class="muted">Searching…</p>}
      {result && (
        <>
          <p class="muted small" data-log-matches={result.count}>
            {result.countIsExact ? formatCount(result.count) : `more than ${formatCount(result.count)}`} lines
            match, from <Time iso={data.from} /> to <Time iso={data.to} />.
          </p>
          {result.data.length === 0 ? (
            <p class="muted empty">
              No log line matches. <Link href={href('logs', window.params)}>Clear the search</Link>
            </p>
          ) : (
            <ol class="matches">
              {result.data.map((m, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: matches in the API's order
                <li key={i} data-match={m.workflowExecutionUUID}>
                  <div class="match-head small">
                    <Time iso={m.timestamp} short /> ·{' '}
                    <Link href={href('workflow', { uuid: m.workflowUUID, ...window.params })}>
                      {m.workflowName}
                    </Link>{' '}
                    · <span class="mono wrap">{m.nodeID}</span> ·{' '}
                    <Link
                      href={href('execution', { uuid: m.workflowExecutionUUID, q: term, ...window.params })}
                    >
                      open the execution
                    </Link>
                  </div>
                  <div class="message">
                    <Highlighted text={m.message} term={term.trim()} />
                  </div>
                </li>
              ))}
            </ol>
          )}
          <Pager
            page={page}
            size={PAGE_SIZE}
            count={result.count}
            noun="matching lines"
            hrefOf={(p) => link({ page: p || undefined })}
          />
        </>
      )}
    </div>
  );
}
