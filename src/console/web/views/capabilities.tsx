import { ErrorNote, Link, Pager, Time } from '../parts/basics.js';
import { WindowPicker } from '../parts/window-picker.js';
import { href, intParam } from '../route.js';
import { useLoad } from '../session.js';
import { formatCount, formatDuration, viewWindow } from '../time.js';

const PAGE_SIZE = 50;
/** Failure rates at or above this are emphasised. */
const HIGH_RATE = 0.05;

/** Each capability's calls, failures, failure rate and p50/p95 over the window (`capabilityStats`). */
export function CapabilitiesView({ params }: { params: URLSearchParams }) {
  const window = viewWindow(params);
  const workflow = params.get('workflow') ?? undefined;
  const page = intParam(params, 'page', 0);
  const { data, error } = useLoad(`capabilities:${window.key}:${workflow}:${page}`, async (client) => {
    const { from, to } = window.range();
    const stats = await client.capabilityStats({
      workflowUUID: workflow,
      from,
      to,
      page: { number: page, size: PAGE_SIZE },
    });
    return { stats, from, to };
  });
  return (
    <div
      data-view="capabilities"
      data-from={data?.from}
      data-to={data?.to}
      data-complete={data ? 'true' : undefined}
    >
      <div class="view-head">
        <h1>Capabilities</h1>
        <WindowPicker view="capabilities" params={params} current={window.name} />
      </div>
      <p class="muted">
        {workflow ? (
          <>
            Calls of one workflow only. <Link href={href('capabilities', window.params)}>All workflows</Link>
          </>
        ) : (
          'Calls across all workflows.'
        )}
        {data && (
          <>
            {' '}
            Calls started from <Time iso={data.from} /> to <Time iso={data.to} />; a call fails when it
            carries an error or ends neither COMPLETED nor SUCCESS.
          </>
        )}
      </p>
      <ErrorNote message={error} />
      {!data && !error && <p class="muted">Loading…</p>}
      {data && data.stats.data.length === 0 && <p class="muted empty">No capability calls in this window.</p>}
      {data && data.stats.data.length > 0 && (
        <>
          <div class="table-wrap">
            <table class="data cards" data-table="capabilities">
              <thead>
                <tr>
                  <th scope="col">capability</th>
                  <th scope="col" class="num">
                    calls
                  </th>
                  <th scope="col" class="num">
                    failures
                  </th>
                  <th scope="col" class="num">
                    failure rate
                  </th>
                  <th scope="col" class="num">
                    p50
                  </th>
                  <th scope="col" class="num">
                    p95
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.stats.data.map((c) => (
                  <tr
                    key={c.capabilityID}
                    data-capability={c.capabilityID}
                    class={c.failureRate >= HIGH_RATE ? 'high' : undefined}
                  >
                    <td class="wrap" data-label="capability">
                      {c.capabilityID}
                    </td>
                    <td class="num" data-cell="calls" data-label="calls">
                      {formatCount(c.calls)}
                    </td>
                    <td class="num" data-cell="failures" data-label="failures">
                      {c.failures > 0 ? (
                        <Link
                          href={href('errors', { ...window.params, capability: c.capabilityID, workflow })}
                          title={`error groups and failing executions of ${c.capabilityID}`}
                        >
                          {formatCount(c.failures)}
                        </Link>
                      ) : (
                        '0'
                      )}
                    </td>
                    <td class="num" data-cell="failure-rate" data-label="failure rate">
                      {(c.failureRate * 100).toFixed(1)} %
                    </td>
                    <td class="num" data-label="p50">
                      {formatDuration(c.p50Ms)}
                    </td>
                    <td class="num" data-label="p95">
                      {formatDuration(c.p95Ms)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={page}
            size={PAGE_SIZE}
            count={data.stats.count}
            noun="capabilities"
            hrefOf={(p) => href('capabilities', { ...window.params, workflow, page: p || undefined })}
          />
        </>
      )}
    </div>
  );
}
