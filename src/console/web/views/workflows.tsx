import { windowCounts } from '../../../cli/commands/workflows/window-counts.js';
import type { SortingOrder, WorkflowOrderByField } from '../../../client/index.js';
import { ErrorNote, Link, Pager, RunStrip, Status, Time } from '../parts/basics.js';
import { SearchBox } from '../parts/search-box.js';
import { href, intParam, navigate } from '../route.js';
import { useLoad } from '../session.js';
import { formatRate } from '../time.js';

const DAY_MS = 86_400_000;
const STRIP_RUNS = 20;
const FIELDS: readonly WorkflowOrderByField[] = ['NAME', 'STATUS', 'EXECUTED_AT'];

export interface WorkflowsState {
  readonly search: string;
  readonly sort: WorkflowOrderByField | undefined;
  readonly order: SortingOrder;
  readonly page: number;
  readonly size: number;
}

export function workflowsState(params: URLSearchParams): WorkflowsState {
  const sort = params.get('sort');
  return {
    search: params.get('search') ?? '',
    sort: FIELDS.includes(sort as WorkflowOrderByField) ? (sort as WorkflowOrderByField) : undefined,
    order: params.get('order') === 'ASC' ? 'ASC' : 'DESC',
    page: intParam(params, 'page', 0),
    size: Math.min(100, Math.max(1, intParam(params, 'size', 20))),
  };
}

function link(state: WorkflowsState, change: Partial<WorkflowsState>): string {
  const s = { ...state, ...change };
  return href('workflows', {
    search: s.search,
    sort: s.sort,
    order: s.sort ? s.order : undefined,
    page: s.page || undefined,
    size: s.size === 20 ? undefined : s.size,
  });
}

export function WorkflowsView({ params }: { params: URLSearchParams }) {
  const state = workflowsState(params);
  const { data, error } = useLoad(`workflows:${params}`, async (client) => {
    const since = new Date(Date.now() - DAY_MS).toISOString();
    const page = await client.workflows({
      search: state.search || undefined,
      orderBy: state.sort ? { field: state.sort, order: state.order } : undefined,
      page: { number: state.page, size: state.size },
    });
    // The page's 24 h counts in one aliased request (as `wfapi workflows` reads them), beside
    // each row's latest runs.
    const [days, rows] = await Promise.all([
      windowCounts(
        client,
        page.data.map((workflow) => workflow.uuid),
        new Date(since),
      ),
      Promise.all(
        page.data.map(async (workflow) => {
          const runs = await client.workflowExecutions({
            workflowUuid: workflow.uuid,
            page: { size: STRIP_RUNS },
          });
          return { workflow, runs: runs.data };
        }),
      ),
    ]);
    return {
      count: page.count,
      rows: rows.map((row) => ({ ...row, day: days.get(row.workflow.uuid)! })),
      since,
    };
  });
  const sortHeader = (field: WorkflowOrderByField, label: string) => {
    const active = state.sort === field;
    const next: SortingOrder = active && state.order === 'DESC' ? 'ASC' : 'DESC';
    return (
      <th scope="col" aria-sort={active ? (state.order === 'ASC' ? 'ascending' : 'descending') : undefined}>
        <Link href={link(state, { sort: field, order: next, page: 0 })} class="sort">
          {label}
          {active ? (state.order === 'ASC' ? ' ▲' : ' ▼') : ''}
        </Link>
      </th>
    );
  };
  return (
    <div data-view="workflows" data-since={data?.since} data-complete={data ? 'true' : undefined}>
      <div class="view-head">
        <h1>Workflows</h1>
        <SearchBox
          label="Search names"
          value={state.search}
          onChange={(search) => navigate(link(state, { search, page: 0 }), { replace: true })}
        />
      </div>
      <ErrorNote message={error} />
      {!data && !error && <p class="muted">Loading…</p>}
      {data && (
        <>
          <div class="table-wrap">
            <table class="data" data-table="workflows">
              <thead>
                <tr>
                  {sortHeader('NAME', 'name')}
                  {sortHeader('STATUS', 'status')}
                  {sortHeader('EXECUTED_AT', 'last run')}
                  <th scope="col" class="num">
                    runs 24 h
                  </th>
                  <th scope="col" class="num">
                    failure rate 24 h
                  </th>
                  <th scope="col">latest runs</th>
                  <th scope="col" class="num">
                    credits
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.rows.map(({ workflow, day, runs }) => (
                  <tr key={workflow.uuid} data-workflow={workflow.uuid}>
                    <td>
                      <Link href={href('workflow', { uuid: workflow.uuid })}>{workflow.name}</Link>
                    </td>
                    <td>
                      <Status value={workflow.status} />
                    </td>
                    <td>
                      <Time iso={workflow.executedAt} short />
                    </td>
                    <td class="num" data-cell="runs">
                      {day.executionCount}
                    </td>
                    <td class="num" data-cell="failure-rate">
                      {formatRate(day.failure, day.success + day.failure)}
                    </td>
                    <td>
                      <RunStrip runs={runs} />
                    </td>
                    <td class="num" data-cell="credits">
                      {workflow.creditUsed ?? '–'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {data.rows.length === 0 && <p class="muted">No workflow matches.</p>}
          <Pager
            page={state.page}
            size={state.size}
            count={data.count}
            noun="workflows"
            hrefOf={(page) => link(state, { page })}
          />
        </>
      )}
    </div>
  );
}
