import type { SortingOrder, WorkflowOrderByField } from '../../../client/index.js';
import type { Client } from '../api.js';
import { failureRate, type WindowCounts, windowCounts } from '../counts.js';
import { ErrorNote, Link, Pager, RunStrip, Status, Time } from '../parts/basics.js';
import { SearchBox } from '../parts/search-box.js';
import { href, intParam, navigate } from '../route.js';
import { useLoad } from '../session.js';
import { formatCount, formatCredits, formatRate, keepWindow, viewWindow } from '../time.js';

type Workflow = Awaited<ReturnType<Client['workflows']>>['data'][number];

const STRIP_RUNS = 20;
/** The API's orderings of `workflows`. */
const API_FIELDS: readonly WorkflowOrderByField[] = ['NAME', 'STATUS', 'EXECUTED_AT'];
/** Orderings by the window's figures, which the API does not offer: the console sorts them. */
type FigureField = 'RUNS' | 'FAILURE_RATE';
const FIGURE_FIELDS: readonly FigureField[] = ['RUNS', 'FAILURE_RATE'];
export type WorkflowsSort = WorkflowOrderByField | FigureField;
/** The page sizes offered; another size in the address (1..100) is kept and offered too. */
export const PAGE_SIZES = [20, 50, 100] as const;
/**
 * Sorting by a figure reads every matching workflow's counts over the window (ten workflows a
 * request): up to this many workflows; beyond, the page the API listed is sorted, and said so.
 */
export const SORT_ALL_UP_TO = 200;
/** The orderings offered where the table's headings are not shown (a phone). */
const SORT_CHOICES: ReadonlyArray<[string, string]> = [
  ['NAME:ASC', 'name, A to Z'],
  ['NAME:DESC', 'name, Z to A'],
  ['STATUS:ASC', 'status'],
  ['EXECUTED_AT:DESC', 'last run, latest first'],
  ['RUNS:DESC', 'runs, most first'],
  ['RUNS:ASC', 'runs, fewest first'],
  ['FAILURE_RATE:DESC', 'failure rate, highest first'],
  ['FAILURE_RATE:ASC', 'failure rate, lowest first'],
];
/** Failure rates at or above this are emphasised, in words as well as in colour. */
const HIGH_RATE = 0.05;

export interface WorkflowsState {
  readonly search: string;
  readonly sort: WorkflowsSort | undefined;
  readonly order: SortingOrder;
  readonly page: number;
  readonly size: number;
  /** The window of the runs and failure-rate columns, as the address carries it. */
  readonly keep: Record<string, string | undefined>;
}

export function workflowsState(params: URLSearchParams): WorkflowsState {
  const sort = params.get('sort') as WorkflowsSort | null;
  const known = sort !== null && ([...API_FIELDS, ...FIGURE_FIELDS] as string[]).includes(sort);
  return {
    search: params.get('search') ?? '',
    sort: known ? sort : undefined,
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

const isFigure = (sort: WorkflowsSort | undefined): sort is FigureField =>
  sort !== undefined && (FIGURE_FIELDS as readonly string[]).includes(sort);

type Row = { workflow: Workflow; day: WindowCounts };

/**
 * Orders rows by a window figure: runs, or failure rate of finished runs (a workflow with none
 * finished has no rate and comes last either way); ties by name, then uuid, ascending.
 */
export function sortByFigure(rows: readonly Row[], field: FigureField, order: SortingOrder): Row[] {
  const value = (row: Row) => (field === 'RUNS' ? row.day.runs : failureRate(row.day));
  const sign = order === 'ASC' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const [x, y] = [value(a), value(b)];
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return sign * (x - y);
    }
    if (a.workflow.name !== b.workflow.name) return a.workflow.name < b.workflow.name ? -1 : 1;
    return a.workflow.uuid < b.workflow.uuid ? -1 : a.workflow.uuid > b.workflow.uuid ? 1 : 0;
  });
}

/** Every workflow matching the search, in pages of 100, when there are at most `most`. */
async function allWorkflows(
  client: Client,
  search: string | undefined,
  most: number,
): Promise<{ count: number; data: Workflow[] | undefined }> {
  const first = await client.workflows({ search, page: { number: 0, size: 100 } });
  if (first.count > most) return { count: first.count, data: undefined };
  const rest = await Promise.all(
    Array.from({ length: Math.ceil(first.count / 100) - 1 }, (_, i) =>
      client.workflows({ search, page: { number: i + 1, size: 100 } }),
    ),
  );
  return { count: first.count, data: [first, ...rest].flatMap((page) => page.data) };
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
    const search = state.search || undefined;
    const countsOf = (workflows: readonly Workflow[]) =>
      windowCounts(
        client,
        workflows.map((workflow) => workflow.uuid),
        from,
        to,
      );
    let count: number;
    let rows: Row[];
    /** Each row's latest runs, in aliased requests: asked beside the counts once the rows are known. */
    let runsAsked: Promise<Map<string, Run[]>>;
    /** Whether a figure's order covers only the page the API listed (too many to read them all). */
    let pageOnly = false;
    const figure = isFigure(state.sort) ? state.sort : undefined;
    const all = figure ? await allWorkflows(client, search, SORT_ALL_UP_TO) : undefined;
    if (figure && all?.data) {
      // Every matching workflow's counts over the window, sorted, then the page of them.
      const counts = await countsOf(all.data);
      const sorted = sortByFigure(
        all.data.map((workflow) => ({ workflow, day: counts.get(workflow.uuid)! })),
        figure,
        state.order,
      );
      count = all.count;
      rows = sorted.slice(state.page * state.size, (state.page + 1) * state.size);
      runsAsked = latestRuns(
        client,
        rows.map((row) => row.workflow.uuid),
      );
    } else {
      const page = await client.workflows({
        search,
        orderBy:
          state.sort && !figure
            ? { field: state.sort as WorkflowOrderByField, order: state.order }
            : undefined,
        page: { number: state.page, size: state.size },
      });
      // The page's rows are the API's whatever their counts: their runs are asked beside them.
      runsAsked = latestRuns(
        client,
        page.data.map((workflow) => workflow.uuid),
      );
      // Its failure is reported where it is awaited, below (or not at all if the counts fail first).
      runsAsked.catch(() => undefined);
      const counts = await countsOf(page.data);
      count = page.count;
      rows = page.data.map((workflow) => ({ workflow, day: counts.get(workflow.uuid)! }));
      if (figure) {
        rows = sortByFigure(rows, figure, state.order);
        pageOnly = true;
      }
    }
    const runs = await runsAsked;
    return {
      count,
      pageOnly,
      rows: rows.map((row) => ({ ...row, runs: runs.get(row.workflow.uuid) ?? [] })),
      from,
      to,
    };
  });
  const sortHeader = (field: WorkflowsSort, label: string, numeric = false) => {
    const active = state.sort === field;
    const next: SortingOrder = active && state.order === 'DESC' ? 'ASC' : 'DESC';
    return (
      <th
        scope="col"
        class={numeric ? 'num' : undefined}
        aria-sort={active ? (state.order === 'ASC' ? 'ascending' : 'descending') : undefined}
        data-sort={field}
      >
        <Link href={link(state, { sort: field, order: next, page: 0 })} class="sort">
          {label}
          {active ? (state.order === 'ASC' ? ' ▲' : ' ▼') : ''}
        </Link>
      </th>
    );
  };
  const over = window.name ?? 'in range';
  const sizes = [...new Set<number>([...PAGE_SIZES, state.size])].sort((a, b) => a - b);
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
        <label class="inline-field phone-only">
          Sort by{' '}
          <select
            name="sort"
            value={state.sort ? `${state.sort}:${state.order}` : ''}
            onChange={(event) => {
              const [sort, order] = (event.target as HTMLSelectElement).value.split(':');
              navigate(
                link(state, {
                  sort: (sort || undefined) as WorkflowsSort | undefined,
                  order: order === 'ASC' ? 'ASC' : 'DESC',
                  page: 0,
                }),
              );
            }}
          >
            <option value="">newest registered</option>
            {SORT_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label class="inline-field">
          Rows per page{' '}
          <select
            name="size"
            value={String(state.size)}
            onChange={(event) =>
              navigate(link(state, { size: Number((event.target as HTMLSelectElement).value), page: 0 }))
            }
          >
            {sizes.map((size) => (
              <option key={size} value={String(size)}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNote message={error} />
      {!data && !error && <p class="muted">Loading…</p>}
      {data && (
        <>
          {data.pageOnly && (
            <p class="muted" data-note="page-only">
              More than {formatCount(SORT_ALL_UP_TO)} workflows match: this page (in the API's order) is
              sorted on its own. Narrow the search to sort them all.
            </p>
          )}
          <div class="table-wrap">
            <table class="data" data-table="workflows">
              <thead>
                <tr>
                  {sortHeader('NAME', 'name')}
                  {sortHeader('STATUS', 'status')}
                  {sortHeader('EXECUTED_AT', 'last run')}
                  {sortHeader('RUNS', `runs ${over}`, true)}
                  {sortHeader('FAILURE_RATE', `failure rate ${over}`, true)}
                  <th scope="col">latest runs</th>
                  <th scope="col" class="num">
                    credits, all time
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.rows.map(({ workflow, day, runs }) => {
                  const rate = failureRate(day);
                  const high = rate !== null && rate >= HIGH_RATE;
                  return (
                    <tr key={workflow.uuid} data-workflow={workflow.uuid} class={high ? 'high' : undefined}>
                      <td>
                        <Link href={href('workflow', { uuid: workflow.uuid, ...state.keep })}>
                          {workflow.name}
                        </Link>
                      </td>
                      <td>
                        <Status value={workflow.status} />
                      </td>
                      <td>
                        <Time iso={workflow.executedAt} ago />
                      </td>
                      <td class="num" data-cell="runs">
                        {formatCount(day.runs)}
                      </td>
                      <td class="num" data-cell="failure-rate">
                        <span>
                          <span data-rate>{formatRate(day.failure, day.success + day.failure)}</span>
                          {high && <span class="flag"> high</span>}
                        </span>
                      </td>
                      <td>
                        <RunStrip runs={runs} keep={state.keep} />
                      </td>
                      <td class="num" data-cell="credits">
                        {formatCredits(workflow.creditUsed)}
                      </td>
                    </tr>
                  );
                })}
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
