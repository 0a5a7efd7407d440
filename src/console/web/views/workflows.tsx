import type { SortingOrder, WorkflowOrderByField } from '../../../client/index.js';
import type { Client } from '../api.js';
import { windowCounts } from '../counts.js';
import { ErrorNote, Link, Pager, RunStrip, Status, Time } from '../parts/basics.js';
import { SearchBox } from '../parts/search-box.js';
import { href, intParam, navigate } from '../route.js';
import { useLoad } from '../session.js';
import { formatCount, formatRate, keepWindow, viewWindow } from '../time.js';

const STRIP_RUNS = 20;
const FIELDS: readonly WorkflowOrderByField[] = ['NAME', 'STATUS', 'EXECUTED_AT'];

export interface WorkflowsState {
  readonly search: string;
  readonly sort: WorkflowOrderByField | undefined;
  readonly order: SortingOrder;
  readonly page: number;
  readonly size: number;
  /** The window of the runs and failure-rate columns, as the address carries it. */
  readonly keep: Record<string, string | undefined>;
}

export function workflowsState(params: URLSearchParams): WorkflowsState {
  const sort = params.get('sort');
  return {
    search: params.get('search') ?? '',
    sort: FIELDS.includes(sort as WorkflowOrderByField) ? (sort as WorkflowOrderByField) : undefined,
    order: params.get('order') === 'ASC' ? 'ASC' : 'DESC',
    page: intParam(params, 'page', 0),
    size: Math.min(100, Math.max(1, intParam(params, 'size', 20))),
    keep: keepWindow(params),
  };
}

function link(state: WorkflowsState, change: Partial<WorkflowsState>): string {
  const s = { ...state, ...change };
  return href('workflows', {
    ...s.keep,
    search: s.search,
    sort: s.sort,
    order: s.sort ? s.order : undefined,
    page: s.page || undefined,
    size: s.size === 20 ? undefined : s.size,
  });
}

type Run = { uuid: string; status: string; startedAt: string };

/** Each workflow's latest runs, 30 workflows an aliased request. */
async function latestRuns(client: Client, uuids: readonly string[]): Promise<Map<string, Run[]>> {
  const chunks: string[][] = [];
  for (let i = 0; i < uuids.length; i += 30) chunks.push(uuids.slice(i, i + 30));
  const answers = await Promise.all(
    chunks.map(async (chunk) => {
      const variables = chunk.map((_, i) => `$w${i}: String!`).join(', ');
      const fields = chunk.map(
        (_, i) =>
          `r${i}: workflowExecutions(input: {workflowUuid: $w${i}, page: {size: ${STRIP_RUNS}}}) { data { uuid status startedAt } }`,
      );
      const answer = await client.request<Record<string, { data: Run[] }>>(
        `query LatestRuns(${variables}) {\n  ${fields.join('\n  ')}\n}`,
        Object.fromEntries(chunk.map((uuid, i) => [`w${i}`, uuid])),
      );
      return chunk.map((uuid, i) => [uuid, answer[`r${i}`]?.data ?? []] as const);
    }),
  );
  return new Map(answers.flat());
}

export function WorkflowsView({ params }: { params: URLSearchParams }) {
  const state = workflowsState(params);
  const window = viewWindow(params);
  const { data, error } = useLoad(`workflows:${params}:${window.key}`, async (client) => {
    const { from, to } = window.range();
    const page = await client.workflows({
      search: state.search || undefined,
      orderBy: state.sort ? { field: state.sort, order: state.order } : undefined,
      page: { number: state.page, size: state.size },
    });
    // The page's counts over the window in aliased requests, beside each row's latest runs.
    const [counts, runs] = await Promise.all([
      windowCounts(
        client,
        page.data.map((workflow) => workflow.uuid),
        from,
        to,
      ),
      latestRuns(
        client,
        page.data.map((workflow) => workflow.uuid),
      ),
    ]);
    return {
      count: page.count,
      rows: page.data.map((workflow) => ({
        workflow,
        runs: runs.get(workflow.uuid) ?? [],
        day: counts.get(workflow.uuid)!,
      })),
      from,
      to,
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
    <div
      data-view="workflows"
      data-from={data?.from}
      data-to={data?.to}
      data-complete={data ? 'true' : undefined}
    >
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
                    runs {window.name ?? 'in range'}
                  </th>
                  <th scope="col" class="num">
                    failure rate {window.name ?? 'in range'}
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
                      <Link href={href('workflow', { uuid: workflow.uuid, ...state.keep })}>
                        {workflow.name}
                      </Link>
                    </td>
                    <td>
                      <Status value={workflow.status} />
                    </td>
                    <td>
                      <Time iso={workflow.executedAt} short />
                    </td>
                    <td class="num" data-cell="runs">
                      {formatCount(day.runs)}
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
