import { useEffect, useRef } from 'preact/hooks';
import type { ErrorGroup, ErrorGroupBucket } from '../../../client/index.js';
import { ErrorNote, Link, Pager, Sparkline, Time } from '../parts/basics.js';
import { WindowPicker } from '../parts/window-picker.js';
import { href, intParam } from '../route.js';
import { useLoad } from '../session.js';
import { formatCount, type ViewWindow, viewWindow } from '../time.js';
import { ExecutionTable } from './workflow.js';

const PAGE_SIZE = 20;
const GROUP_PAGE_SIZE = 10;
const COLUMNS = 6;

/** A group as the view's query selects it: its activity's occurrences only. */
type Group = Omit<ErrorGroup, 'activity'> & { activity: Array<Pick<ErrorGroupBucket, 'occurrences'>> };

export function ErrorsView({ params }: { params: URLSearchParams }) {
  const window = viewWindow(params);
  const page = intParam(params, 'page', 0);
  const workflow = params.get('workflow') ?? undefined;
  const capability = params.get('capability') ?? undefined;
  const fp = params.get('fp') ?? undefined;
  const groupPage = intParam(params, 'gpage', 0);
  const { data, error } = useLoad(
    `errors:${window.key}:${page}:${workflow}:${capability}`,
    async (client) => {
      const { from, to } = window.range();
      const groups = await client.errorGroups({
        workflowUUID: workflow,
        capabilityID: capability,
        from,
        to,
        page: { number: page, size: PAGE_SIZE },
      });
      return { groups, from, to };
    },
  );
  const link = (change: Record<string, string | number | undefined>) =>
    href('errors', { ...window.params, workflow, capability, page: page || undefined, fp, ...change });
  const chosen = data?.groups.data.find((g) => g.fingerprint === fp);
  const detail = (group: Group | undefined) =>
    fp && (
      <GroupDetail
        key={fp}
        fingerprint={fp}
        group={group}
        window={window}
        workflow={workflow}
        page={groupPage}
        hrefOf={(p) => link({ gpage: p || undefined })}
        closeHref={link({ fp: undefined })}
      />
    );
  return (
    <div
      data-view="errors"
      data-from={data?.from}
      data-to={data?.to}
      data-complete={data ? 'true' : undefined}
    >
      <div class="view-head">
        <h1>Errors</h1>
        <WindowPicker view="errors" params={params} current={window.name} />
      </div>
      <p class="muted" data-scope={workflow ? 'workflow' : 'all'}>
        {workflow ? (
          <>
            Of one workflow only (
            <Link href={href('workflow', { uuid: workflow, ...window.params })}>open it</Link>
            ). <Link href={href('errors', window.params)}>All workflows</Link>
          </>
        ) : (
          'Across all workflows.'
        )}
        {capability && (
          <>
            {' '}
            Errors carried by capability <span class="mono">{capability}</span> only (
            <Link href={href('errors', { ...window.params, workflow })}>all errors</Link>).
          </>
        )}
        {data && (
          <>
            {' '}
            Errors seen from <Time iso={data.from} /> to <Time iso={data.to} />.
          </>
        )}
      </p>
      <ErrorNote message={error} />
      {!data && !error && <p class="muted">Loading…</p>}
      {data && fp && !chosen && <div class="card">{detail(undefined)}</div>}
      {data && (
        <>
          {data.groups.data.length === 0 ? (
            <p class="muted">No errors in this window.</p>
          ) : (
            <div class="table-wrap">
              <table class="data" data-table="error-groups">
                <thead>
                  <tr>
                    <th scope="col">pattern</th>
                    <th scope="col" class="num">
                      occurrences
                    </th>
                    <th scope="col" class="num">
                      executions
                    </th>
                    <th scope="col" class="num">
                      workflows
                    </th>
                    <th scope="col">trend</th>
                    <th scope="col">last seen</th>
                  </tr>
                </thead>
                <tbody>
                  {data.groups.data.flatMap((g) => [
                    <tr
                      key={g.fingerprint}
                      data-fingerprint={g.fingerprint}
                      class={g.fingerprint === fp ? 'chosen' : undefined}
                    >
                      <td class="pattern">
                        <Link
                          href={link({
                            fp: g.fingerprint === fp ? undefined : g.fingerprint,
                            gpage: undefined,
                          })}
                          aria-expanded={g.fingerprint === fp ? 'true' : 'false'}
                        >
                          {g.pattern}
                        </Link>
                        {g.capabilityIDs.length > 0 && (
                          <div class="muted small">in {g.capabilityIDs.join(', ')}</div>
                        )}
                      </td>
                      <td class="num" data-cell="occurrences">
                        {formatCount(g.occurrences)}
                      </td>
                      <td class="num" data-cell="executions">
                        {formatCount(g.executionCount)}
                      </td>
                      <td class="num" data-cell="workflows">
                        {formatCount(g.workflowCount)}
                      </td>
                      <td>
                        <Sparkline
                          values={g.activity.map((b) => b.occurrences)}
                          label={`trend of ${g.pattern}`}
                        />
                      </td>
                      <td>
                        <Time iso={g.lastSeenAt} ago />
                      </td>
                    </tr>,
                    g.fingerprint === fp ? (
                      <tr key={`${g.fingerprint}-detail`} class="detail-row">
                        <td colSpan={COLUMNS}>{detail(g)}</td>
                      </tr>
                    ) : null,
                  ])}
                </tbody>
              </table>
            </div>
          )}
          <Pager
            page={page}
            size={PAGE_SIZE}
            count={data.groups.count}
            noun="error groups"
            hrefOf={(p) => link({ page: p || undefined, fp: undefined, gpage: undefined })}
          />
        </>
      )}
    </div>
  );
}

/**
 * One error group opened under its row: its pattern as the title, a real message of it, when it
 * was first and last seen, what its occurrences count, and the executions that had it in the
 * window (the API's `errorFingerprint`), paged, with their workflow.
 */
function GroupDetail({
  fingerprint,
  group,
  window,
  workflow,
  page,
  hrefOf,
  closeHref,
}: {
  fingerprint: string;
  group: Group | undefined;
  window: ViewWindow;
  workflow: string | undefined;
  page: number;
  hrefOf: (page: number) => string;
  closeHref: string;
}) {
  const { data, error } = useLoad(
    `group:${fingerprint}:${window.key}:${workflow}:${page}`,
    async (client) => {
      const { from, to } = window.range();
      const executions = await client.workflowExecutions({
        errorFingerprint: fingerprint,
        workflowUuid: workflow,
        from,
        to,
        page: { number: page, size: GROUP_PAGE_SIZE },
      });
      return { executions, from, to };
    },
  );
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: 'nearest' });
    heading.current?.closest('.group-detail')?.scrollIntoView({ block: 'nearest' });
    heading.current?.focus({ preventScroll: true });
  }, []);
  const scope = workflow
    ? `in workflow ${data?.executions.data[0]?.workflowName ?? workflow}`
    : 'across all workflows';
  return (
    <section class="group-detail" aria-labelledby="group-title" data-section="group-detail">
      <header class="card-head">
        <h2 id="group-title" ref={heading} tabIndex={-1} class="pattern">
          {group?.pattern ?? `Error group ${fingerprint}`}
        </h2>
        <Link href={closeHref} class="quiet-button">
          Close
        </Link>
      </header>
      {group ? (
        <dl class="fields">
          <dt>sample message</dt>
          <dd class="error-text" data-figure="sample">
            {group.sampleMessage}
          </dd>
          <dt>first seen</dt>
          <dd>
            <Time iso={group.firstSeenAt} /> <span class="muted">(over all time)</span>
          </dd>
          <dt>last seen</dt>
          <dd>
            <Time iso={group.lastSeenAt} />
          </dd>
          <dt>occurrences</dt>
          <dd>
            <span data-figure="occurrences">{formatCount(group.occurrences)}</span>{' '}
            <span class="muted">
              in the window, {scope}: the count of every error of this pattern, reported on an execution and
              on each of its capability calls alike, so one failed run can count several times.
            </span>
          </dd>
          <dt>executions</dt>
          <dd>
            {formatCount(group.executionCount)} in {formatCount(group.workflowCount)} workflow
            {group.workflowCount === 1 ? '' : 's'}
            {group.capabilityIDs.length > 0 && (
              <span class="muted"> · in {group.capabilityIDs.join(', ')}</span>
            )}
          </dd>
          <dt>fingerprint</dt>
          <dd class="mono small">{fingerprint}</dd>
        </dl>
      ) : (
        <p class="muted">This group is not on this page of the window's groups; its executions:</p>
      )}
      <h3>Executions with this error {scope}</h3>
      <ErrorNote message={error} />
      {!data && !error && <p class="muted">Loading…</p>}
      {data && (
        <div data-group-count={data.executions.count}>
          <ExecutionTable rows={data.executions.data} keep={window.params} withWorkflow />
          <Pager
            page={page}
            size={GROUP_PAGE_SIZE}
            count={data.executions.count}
            noun="executions"
            hrefOf={hrefOf}
          />
        </div>
      )}
    </section>
  );
}
