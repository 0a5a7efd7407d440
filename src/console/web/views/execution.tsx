import { useState } from 'preact/hooks';
import { groupLogs } from '../../../present/log-groups.js';
import type { Client } from '../api.js';
import { CopyButton, ErrorNote, Link, Section, Status, Time, toneOf } from '../parts/basics.js';
import { SearchBox } from '../parts/search-box.js';
import { href, navigate } from '../route.js';
import { useLoad } from '../session.js';
import { formatCredits, formatDuration, formatLocal, keepWindow } from '../time.js';

/**
 * The error groups this execution belongs to: the groups of its workflow at its start instant,
 * each confirmed by asking for the executions of that group (the API's `errorFingerprint`).
 */
async function groupsOf(
  client: Client,
  execution: { uuid: string; workflowUUID: string; startedAt: string },
) {
  const at = { from: execution.startedAt, to: execution.startedAt };
  const groups = await client.errorGroups({
    workflowUUID: execution.workflowUUID,
    ...at,
    page: { size: 100 },
  });
  const confirmed = await Promise.all(
    groups.data.map(async (group) => {
      const found = await client.workflowExecutions({
        workflowUuid: execution.workflowUUID,
        errorFingerprint: group.fingerprint,
        search: execution.uuid,
        ...at,
        page: { size: 1 },
      });
      return found.count > 0 ? group : undefined;
    }),
  );
  return confirmed.filter((g) => g !== undefined);
}

const AROUND = `query ExecutionAround($workflow: String!, $at: Time!) {
  before: workflowExecutions(input: {workflowUuid: $workflow, to: $at, orderBy: {field: STARTED_AT, order: DESC}, page: {size: 3}}) {
    data { uuid id startedAt status }
  }
  after: workflowExecutions(input: {workflowUuid: $workflow, from: $at, orderBy: {field: STARTED_AT, order: ASC}, page: {size: 3}}) {
    data { uuid id startedAt status }
  }
  workflowDeployments(input: {workflowUUID: $workflow, to: $at, orderBy: {field: DEPLOYED_AT, order: DESC}, page: {size: 1}}) {
    data { uuid status deployedAt txHash }
  }
}`;
type Neighbour = { uuid: string; id: string; startedAt: string; status: string };
interface AroundAnswer {
  before: { data: Neighbour[] };
  after: { data: Neighbour[] };
  workflowDeployments: {
    data: Array<{ uuid: string; status: string; deployedAt: string; txHash: string | null }>;
  };
}

/**
 * The runs of the same workflow just before and after this one (by start, ties by the API's
 * order), and the deployment that was the latest when it started, in one aliased request.
 */
async function aroundOf(
  client: Client,
  execution: { uuid: string; workflowUUID: string; startedAt: string },
) {
  const answer = await client.request<AroundAnswer>(AROUND, {
    workflow: execution.workflowUUID,
    at: execution.startedAt,
  });
  const at = Date.parse(execution.startedAt);
  const other = (n: Neighbour) => n.uuid !== execution.uuid;
  return {
    previous:
      answer.before.data.find((n) => other(n) && Date.parse(n.startedAt) < at) ??
      answer.before.data.find(other),
    next:
      answer.after.data.find((n) => other(n) && Date.parse(n.startedAt) > at) ??
      answer.after.data.find(other),
    deployment: answer.workflowDeployments.data[0],
  };
}

export function ExecutionView({ params }: { params: URLSearchParams }) {
  const uuid = params.get('uuid') ?? '';
  const node = params.get('node') ?? '';
  const text = params.get('q') ?? '';
  const { data, error } = useLoad(`execution:${uuid}`, async (client) => {
    const [execution, events, logs] = await Promise.all([
      client.workflowExecution({ uuid }),
      client.workflowExecutionEvents({ workflowExecutionUUID: uuid }),
      client.workflowExecutionLogs({ workflowExecutionUUID: uuid }),
    ]);
    const [groups, around] = execution.data
      ? await Promise.all([groupsOf(client, execution.data), aroundOf(client, execution.data)])
      : [[], undefined];
    return { execution: execution.data, events: events.data ?? [], logs: logs.data ?? [], groups, around };
  });
  const set = (change: Record<string, string>) =>
    navigate(href('execution', { uuid, node, q: text, ...keepWindow(params), ...change }), { replace: true });
  const e = data?.execution;
  return (
    <div data-view="execution" data-complete={data ? 'true' : undefined}>
      <div class="view-head">
        <h1>
          {e ? (
            <>
              <Link href={href('workflow', { uuid: e.workflowUUID, ...keepWindow(params) })} class="crumb">
                {e.workflowName}
              </Link>{' '}
              / execution{' '}
              <span title={e.id}>{e.id.length > 18 ? `${e.id.slice(0, 10)}…${e.id.slice(-6)}` : e.id}</span>
            </>
          ) : (
            `Execution ${uuid}`
          )}
        </h1>
      </div>
      <ErrorNote message={error} />
      {!data && !error && <p class="muted">Loading…</p>}
      {data && !e && <p class="error-note">No execution {uuid} is visible to this key.</p>}
      {data && e && (
        <>
          <Section title="Summary" id="summary">
            <dl class="fields">
              <dt>status</dt>
              <dd data-figure="status">
                <Status value={e.status} />{' '}
                {e.classifiedStatus && e.classifiedStatus !== e.status && (
                  <Status value={e.classifiedStatus} />
                )}
              </dd>
              <dt>id</dt>
              <dd class="mono">
                <span class="wrap">{e.id}</span> <CopyButton value={e.id} label="Copy the execution id" />
              </dd>
              <dt>uuid</dt>
              <dd class="mono">
                <span class="wrap">{e.uuid}</span>{' '}
                <CopyButton value={e.uuid} label="Copy the execution uuid" />
              </dd>
              <dt>started</dt>
              <dd>
                <Time iso={e.startedAt} relative />
              </dd>
              <dt>finished</dt>
              <dd>
                <Time iso={e.finishedAt} relative />
                {e.finishedAt &&
                  ` (took ${formatDuration(Date.parse(e.finishedAt) - Date.parse(e.startedAt))})`}
              </dd>
              <dt>deployment</dt>
              <dd data-figure="deployment">
                {data.around?.deployment ? (
                  <>
                    <Status value={data.around.deployment.status} /> deployed{' '}
                    <Time iso={data.around.deployment.deployedAt} relative />{' '}
                    <span class="mono small wrap">{data.around.deployment.uuid}</span>{' '}
                    <CopyButton value={data.around.deployment.uuid} label="Copy the deployment uuid" />
                  </>
                ) : (
                  <span class="muted">none deployed before it started</span>
                )}
              </dd>
              <dt>workflow runs</dt>
              <dd class="neighbours">
                {data.around?.previous ? (
                  <Link
                    href={href('execution', { uuid: data.around.previous.uuid, ...keepWindow(params) })}
                    data-neighbour="previous"
                  >
                    ← previous ({data.around.previous.status},{' '}
                    <Time iso={data.around.previous.startedAt} short />)
                  </Link>
                ) : (
                  <span class="muted">no earlier run</span>
                )}
                {' · '}
                {data.around?.next ? (
                  <Link
                    href={href('execution', { uuid: data.around.next.uuid, ...keepWindow(params) })}
                    data-neighbour="next"
                  >
                    next ({data.around.next.status}, <Time iso={data.around.next.startedAt} short />) →
                  </Link>
                ) : (
                  <span class="muted">no later run</span>
                )}
              </dd>
              <dt>credits</dt>
              <dd data-figure="credits">{formatCredits(e.creditUsed)}</dd>
              <dt>in TEE</dt>
              <dd>
                {e.executedInTee === null || e.executedInTee === undefined
                  ? '–'
                  : e.executedInTee
                    ? 'yes'
                    : 'no'}
              </dd>
            </dl>
          </Section>
          <Section title="Errors" id="errors">
            {(e.errors ?? []).length === 0 ? (
              <p class="muted">None.</p>
            ) : (
              <ul class="plain">
                {(e.errors ?? []).map((x, i) =>
                  x ? (
                    // biome-ignore lint/suspicious/noArrayIndexKey: errors have no identity but their place
                    <li key={i} class="error-text" data-error>
                      {x.error}
                      {x.count > 1 && <span class="muted"> (reported by {x.count} nodes)</span>}
                    </li>
                  ) : null,
                )}
              </ul>
            )}
            {data.groups.length > 0 && (
              <table class="data">
                <caption>Error groups of this execution</caption>
                <thead>
                  <tr>
                    <th scope="col">fingerprint</th>
                    <th scope="col">pattern</th>
                  </tr>
                </thead>
                <tbody>
                  {data.groups.map((g) => (
                    <tr key={g.fingerprint} data-fingerprint={g.fingerprint}>
                      <td class="mono">
                        <Link
                          href={href('errors', {
                            fp: g.fingerprint,
                            window: '30d',
                            workflow: e.workflowUUID,
                          })}
                        >
                          {g.fingerprint}
                        </Link>
                      </td>
                      <td class="pattern">{g.pattern}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
          <Section title="Capability timeline" id="timeline">
            <Gantt startedAt={e.startedAt} finishedAt={e.finishedAt ?? undefined} events={data.events} />
          </Section>
          <Section title="Logs" id="logs">
            <LogList logs={data.logs} startedAt={e.startedAt} node={node} text={text} onChange={set} />
          </Section>
        </>
      )}
    </div>
  );
}

type Event = {
  capabilityID: string;
  status: string;
  method?: string | null;
  startedAt: string;
  finishedAt?: string | null;
  errors?: ReadonlyArray<{ error: string; count: number } | null> | null;
};

/** Ticks of the Gantt chart's time axis: five, from the start to the end of the execution. */
const TICKS = [0, 0.25, 0.5, 0.75, 1];

/**
 * Capability calls as bars on the execution's time axis, failed ones marked. Each bar is a button:
 * focusing it (Tab) or tapping it shows its method, timing and errors in the panel under the chart.
 */
function Gantt({
  startedAt,
  finishedAt,
  events,
}: {
  startedAt: string;
  finishedAt?: string;
  events: readonly Event[];
}) {
  const [chosen, setChosen] = useState<number | undefined>(undefined);
  if (events.length === 0) return <p class="muted">No capability events.</p>;
  const start = Math.min(Date.parse(startedAt), ...events.map((x) => Date.parse(x.startedAt)));
  const end = Math.max(
    finishedAt ? Date.parse(finishedAt) : start + 1,
    ...events.map((x) => Date.parse(x.finishedAt ?? x.startedAt)),
  );
  const span = Math.max(1, end - start);
  const rows = events.map((x) => {
    const from = Date.parse(x.startedAt);
    const to = x.finishedAt ? Date.parse(x.finishedAt) : end;
    const errors = (x.errors ?? []).flatMap((err) => (err ? [err.error] : []));
    const failed = errors.length > 0 || toneOf(x.status) === 'bad';
    const lines = [
      `${x.capabilityID}${x.method ? ` ${x.method}` : ''}`,
      `${x.status}, ${x.finishedAt ? `took ${formatDuration(to - from)}` : 'still running'}`,
      `started ${formatLocal(x.startedAt)} (+${formatDuration(from - start)} into the execution)`,
      ...errors.map((err) => `error: ${err}`),
    ];
    return { x, from, to, errors, failed, lines };
  });
  const shown = chosen === undefined ? undefined : rows[chosen];
  return (
    <div class="gantt-wrap">
      <div class="gantt-axis" aria-hidden="true">
        <span class="gantt-label" />
        <span class="gantt-track">
          {TICKS.map((f) => (
            <span key={f} class="gantt-tick" style={{ left: `${f * 100}%` }} data-tick>
              +{formatDuration(f * span)}
            </span>
          ))}
        </span>
        <span class="gantt-note" />
      </div>
      <ol class="gantt" aria-label="Capability calls in time; each bar is a button that shows its details">
        {rows.map(({ x, from, to, errors, failed, lines }, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: events are shown in the API's order
          <li key={i} class="gantt-row" data-event={x.capabilityID} data-failed={failed ? 'true' : undefined}>
            <span class="gantt-label">
              {x.capabilityID}
              {x.method && <span class="muted"> {x.method}</span>}
            </span>
            <span class="gantt-track">
              <button
                type="button"
                class={`gantt-bar ${failed ? 'bad' : toneOf(x.status)}`}
                style={{
                  left: `${((from - start) / span) * 100}%`,
                  width: `${Math.max(0.5, ((to - from) / span) * 100)}%`,
                }}
                aria-label={lines.join('; ')}
                aria-pressed={chosen === i}
                aria-controls="gantt-detail"
                title={lines.join('\n')}
                onFocus={() => setChosen(i)}
                onClick={() => setChosen(i)}
              />
            </span>
            <span class="gantt-note">
              {x.finishedAt ? formatDuration(to - from) : 'running'}{' '}
              {failed && <span class="error-text">✗ {errors.join('; ') || x.status}</span>}
            </span>
          </li>
        ))}
      </ol>
      <div id="gantt-detail" class="gantt-detail" role="status" aria-live="polite" data-gantt-detail>
        {shown ? (
          shown.lines.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one call's details
            <div key={i} class={line.startsWith('error:') ? 'error-text' : undefined}>
              {line}
            </div>
          ))
        ) : (
          <span class="muted">Focus or tap a bar for its details.</span>
        )}
      </div>
    </div>
  );
}

type Log = { nodeID: string; message: string; timestamp: string };

function LogList({
  logs,
  startedAt,
  node,
  text,
  onChange,
}: {
  logs: readonly Log[];
  startedAt: string;
  node: string;
  text: string;
  onChange: (change: Record<string, string>) => void;
}) {
  const nodes = [...new Set(logs.map((l) => l.nodeID))];
  const needle = text.toLowerCase();
  const shown = logs.filter(
    (l) => (!node || l.nodeID === node) && (!needle || l.message.toLowerCase().includes(needle)),
  );
  // As `wfapi execution` shows them: by time, the same message from several nodes once.
  const groups = groupLogs(shown, node !== '');
  const origin = Date.parse(startedAt);
  return (
    <>
      <div class="filters">
        <label>
          <span>Node</span>
          <select value={node} onChange={(ev) => onChange({ node: (ev.target as HTMLSelectElement).value })}>
            <option value="">all {nodes.length} nodes</option>
            {nodes.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <SearchBox label="Search messages" value={text} onChange={(q) => onChange({ q })} />
      </div>
      {groups.length === 0 ? (
        <p class="muted">No log lines{logs.length ? ' match' : ''}.</p>
      ) : (
        <ol class="logs" data-log-count={shown.length}>
          {groups.map((g, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: log lines are in time order and have no id
            <li key={i} data-log>
              <span class="mono muted" title={formatLocal(g.first.timestamp)}>
                +{formatDuration(Math.max(0, Date.parse(g.first.timestamp) - origin))}
              </span>{' '}
              <span class="node" title={g.nodes.join(', ')}>
                {g.nodes.length > 1 ? `${g.nodes.length} nodes` : short(g.first.nodeID)}
              </span>{' '}
              <span class="message">{g.first.message}</span>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

function short(node: string): string {
  return node.length > 16 ? `${node.slice(0, 6)}…${node.slice(-6)}` : node;
}
