import { ErrorNote, Link, Pager, Section, Sparkline, Time } from '../parts/basics.js';
import { WindowPicker } from '../parts/window-picker.js';
import { href, intParam } from '../route.js';
import { useLoad } from '../session.js';
import { windowParam, windowRange } from '../time.js';
import { ExecutionTable } from './workflow.js';

const PAGE_SIZE = 20;

export function ErrorsView({ params }: { params: URLSearchParams }) {
  const window = windowParam(params);
  const page = intParam(params, 'page', 0);
  const workflow = params.get('workflow') ?? undefined;
  const fp = params.get('fp') ?? undefined;
  const { data, error } = useLoad(`errors:${window}:${page}:${workflow}`, async (client) => {
    const { from, to } = windowRange(window);
    const groups = await client.errorGroups({
      workflowUUID: workflow,
      from,
      to,
      page: { number: page, size: PAGE_SIZE },
    });
    return { groups, from, to };
  });
  const link = (change: Record<string, string | number | undefined>) =>
    href('errors', { window, workflow, page: page || undefined, fp, ...change });
  return (
    <div
      data-view="errors"
      data-from={data?.from}
      data-to={data?.to}
      data-complete={data ? 'true' : undefined}
    >
      <div class="view-head">
        <h1>Errors</h1>
        <WindowPicker view="errors" params={params} current={window} />
      </div>
      {workflow && (
        <p class="muted">
          Of one workflow only. <Link href={href('errors', { window })}>All workflows</Link>
        </p>
      )}
      <ErrorNote message={error} />
      {!data && !error && <p class="muted">Loading…</p>}
      {fp && <GroupExecutions fingerprint={fp} window={window} workflow={workflow} />}
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
                  {data.groups.data.map((g) => (
                    <tr
                      key={g.fingerprint}
                      data-fingerprint={g.fingerprint}
                      aria-selected={g.fingerprint === fp ? 'true' : undefined}
                    >
                      <td class="pattern">
                        <Link href={link({ fp: g.fingerprint })}>{g.pattern}</Link>
                        {g.capabilityIDs.length > 0 && (
                          <div class="muted small">in {g.capabilityIDs.join(', ')}</div>
                        )}
                      </td>
                      <td class="num" data-cell="occurrences">
                        {g.occurrences}
                      </td>
                      <td class="num" data-cell="executions">
                        {g.executionCount}
                      </td>
                      <td class="num" data-cell="workflows">
                        {g.workflowCount}
                      </td>
                      <td>
                        <Sparkline
                          values={g.activity.map((b) => b.occurrences)}
                          label={`trend of ${g.pattern}`}
                        />
                      </td>
                      <td>
                        <Time iso={g.lastSeenAt} short />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <Pager
            page={page}
            size={PAGE_SIZE}
            count={data.groups.count}
            noun="error groups"
            hrefOf={(p) => link({ page: p || undefined })}
          />
        </>
      )}
    </div>
  );
}

/** The executions that had one error group in the window (the API's `errorFingerprint` filter). */
function GroupExecutions({
  fingerprint,
  window,
  workflow,
}: {
  fingerprint: string;
  window: ReturnType<typeof windowParam>;
  workflow: string | undefined;
}) {
  const { data, error } = useLoad(`group:${fingerprint}:${window}:${workflow}`, (client) => {
    const { from, to } = windowRange(window);
    return client.workflowExecutions({
      errorFingerprint: fingerprint,
      workflowUuid: workflow,
      from,
      to,
      page: { size: 20 },
    });
  });
  return (
    <Section title={`Executions with error group ${fingerprint}`} id="group-executions">
      <ErrorNote message={error} />
      {data && (
        <>
          <ExecutionTable rows={data.data} />
          <p class="muted small" data-group-count={data.count}>
            {data.count > data.data.length
              ? `The latest ${data.data.length} of ${data.count} executions.`
              : `${data.count} executions.`}
          </p>
        </>
      )}
    </Section>
  );
}
