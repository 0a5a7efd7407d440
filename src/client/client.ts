import { type EventsInput, type EventsOptions, type ExecutionEvent, streamEvents } from './events.js';
import { OPERATIONS } from './operations.generated.js';
import { PageIterator } from './paged.js';
import { type ClientOptions, endpointOf, type RequestOptions, Transport } from './transport.js';
import type { ItemOf, PagedQueryName, QueryArgs, QueryInput, QueryName, QueryResult } from './types.js';

/** The paged lists; `satisfies` fails the build when the schema gains or loses one. */
const PAGED_QUERIES = {
  workflows: true,
  workflowDeployments: true,
  workflowExecutions: true,
  errorGroups: true,
  capabilityStats: true,
  searchExecutionLogs: true,
  deploymentImpact: true,
} as const satisfies Record<PagedQueryName, true>;

/** The input may be left out when none of its fields is required. */
type InputParams<K extends QueryName> =
  Record<string, never> extends QueryInput<K>
    ? [input?: QueryInput<K>, options?: RequestOptions]
    : [input: QueryInput<K>, options?: RequestOptions];

export type Paginators = {
  readonly [K in PagedQueryName]: (...params: InputParams<K>) => PageIterator<ItemOf<K>, QueryResult<K>>;
};

/**
 * A typed client of the read API: one method per query, named as the query, taking its `input`
 * and answering its result exactly as the server sent it (Time and CreditAmount as strings).
 * Works against wfapi and the hosted platform alike; only `url` and `apiKey` differ.
 *
 * ```ts
 * const client = new Client({ url: 'http://127.0.0.1:4000', apiKey: 'wfk_...' });
 * const { data } = await client.workflow({ uuid, from: new Date(Date.now() - 7 * 864e5).toISOString() });
 * for await (const execution of client.paginate.workflowExecutions({ status: ['FAILURE'] })) { ... }
 * ```
 */
export class Client {
  /** The GraphQL endpoint requests go to. */
  readonly endpoint: string;
  /** Every item of each paged list as an async iterator, fetching pages as they are consumed. */
  readonly paginate: Paginators;
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport({
      ...options,
      endpoint: endpointOf(options.url),
      authorization: `Apikey ${options.apiKey}`,
    });
    this.endpoint = this.transport.endpoint;
    const paginators: Record<string, unknown> = {};
    for (const name of Object.keys(PAGED_QUERIES) as PagedQueryName[]) {
      paginators[name] = (input?: QueryInput<typeof name>, options?: RequestOptions) =>
        this.iterate(name, input, options);
    }
    this.paginate = paginators as Paginators;
  }

  /** Runs one query by name: the generic form behind every method. */
  async query<K extends QueryName>(
    name: K,
    args: QueryArgs<K>,
    options?: RequestOptions,
  ): Promise<QueryResult<K>> {
    const data = await this.transport.execute(OPERATIONS[name], args, options);
    return data[name] as QueryResult<K>;
  }

  /**
   * Sends any query document and resolves with its `data`: for what one method per query cannot
   * say, such as several root fields or aliases in one request. Errors and retries are those of
   * the methods; any entry in `errors` rejects the whole answer.
   */
  async request<Data = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown> = {},
    options?: RequestOptions,
  ): Promise<Data> {
    return (await this.transport.execute(query, variables, options)) as Data;
  }

  /** The member that owns the API key. */
  getAccountDetails(options?: RequestOptions) {
    return this.query('getAccountDetails', {}, options);
  }

  /** The organization of the API key. */
  getOrganization(options?: RequestOptions) {
    return this.query('getOrganization', {}, options);
  }

  /** One page of workflows (see `paginate.workflows` for all of them). */
  workflows(...[input = {}, options]: InputParams<'workflows'>) {
    return this.query('workflows', { input }, options);
  }

  /** One workflow with its counts over executions started at or after `from`. */
  workflow(...[input, options]: InputParams<'workflow'>) {
    return this.query('workflow', { input }, options);
  }

  /** Success and failure counts per time bucket. */
  workflowActivity(...[input = {}, options]: InputParams<'workflowActivity'>) {
    return this.query('workflowActivity', { input }, options);
  }

  /** One page of a workflow's deployments (see `paginate.workflowDeployments`). */
  workflowDeployments(...[input, options]: InputParams<'workflowDeployments'>) {
    return this.query('workflowDeployments', { input }, options);
  }

  workflowDeployment(...[input, options]: InputParams<'workflowDeployment'>) {
    return this.query('workflowDeployment', { input }, options);
  }

  /** One page of executions (see `paginate.workflowExecutions`). */
  workflowExecutions(...[input = {}, options]: InputParams<'workflowExecutions'>) {
    return this.query('workflowExecutions', { input }, options);
  }

  /** One execution; `data` is null when it does not exist or is not visible to this key. */
  workflowExecution(...[input, options]: InputParams<'workflowExecution'>) {
    return this.query('workflowExecution', { input }, options);
  }

  /** An execution's log lines by time; `data` is null for an unknown execution. */
  workflowExecutionLogs(...[input, options]: InputParams<'workflowExecutionLogs'>) {
    return this.query('workflowExecutionLogs', { input }, options);
  }

  /** An execution's capability events by start; `data` is null for an unknown execution. */
  workflowExecutionEvents(...[input, options]: InputParams<'workflowExecutionEvents'>) {
    return this.query('workflowExecutionEvents', { input }, options);
  }

  /** Error groups of a window, most frequent first (wfapi's extended API, not the hosted one). */
  errorGroups(...[input = {}, options]: InputParams<'errorGroups'>) {
    return this.query('errorGroups', { input }, options);
  }

  /** Duration count, mean, exact min and max, percentiles and histogram (extended API). */
  durationStats(...[input = {}, options]: InputParams<'durationStats'>) {
    return this.query('durationStats', { input }, options);
  }

  /** Calls, failures and latency per capability, most failures first (extended API). */
  capabilityStats(...[input = {}, options]: InputParams<'capabilityStats'>) {
    return this.query('capabilityStats', { input }, options);
  }

  /** Log lines whose message contains `query` (case-insensitive), newest first (extended API). */
  searchExecutionLogs(...[input, options]: InputParams<'searchExecutionLogs'>) {
    return this.query('searchExecutionLogs', { input }, options);
  }

  /**
   * One page of an execution's log lines in workflowExecutionLogs' order, from just after `after`
   * (the previous page's `next`), within the answer's byte budget (extended API).
   */
  workflowExecutionLogPage(...[input, options]: InputParams<'workflowExecutionLogPage'>) {
    return this.query('workflowExecutionLogPage', { input }, options);
  }

  /**
   * Each deployment of a workflow with its verdict: before against after, the failure rate by
   * Fisher's exact test, durations by Mann-Whitney U, and the error groups it brought or ended
   * (extended API). `deploymentUUID` narrows it to one.
   */
  deploymentImpact(...[input, options]: InputParams<'deploymentImpact'>) {
    return this.query('deploymentImpact', { input }, options);
  }

  /**
   * Buckets that stand out from the same time of the week in the four weeks before, with each
   * metric's series against its expected band (extended API).
   */
  anomalies(...[input = {}, options]: InputParams<'anomalies'>) {
    return this.query('anomalies', { input }, options);
  }

  /**
   * The organization's service level objectives with their attainment, error budget, burn rates
   * and status, each window ending now (extended API).
   */
  serviceLevels(...[input = {}, options]: InputParams<'serviceLevels'>) {
    return this.query('serviceLevels', { input }, options);
  }

  /**
   * The organization's execution changes as they happen (`GET /events`, wfapi's extended API),
   * resuming with `Last-Event-ID` after every drop. Break out of the loop, or abort
   * `options.signal`, to close the stream.
   *
   * ```ts
   * for await (const { execution } of client.events({ status: ['FAILURE'] })) console.log(execution.uuid);
   * ```
   */
  events(
    input: EventsInput = {},
    options: EventsOptions = {},
  ): AsyncGenerator<ExecutionEvent, void, undefined> {
    return streamEvents(this.transport, input, options);
  }

  private iterate<K extends PagedQueryName>(
    name: K,
    input: QueryInput<K> | undefined,
    options: RequestOptions | undefined,
  ): PageIterator<ItemOf<K>, QueryResult<K>> {
    const base = (input ?? {}) as QueryInput<K> & {
      page?: { number?: number | null; size?: number | null } | null;
    };
    const first = { number: base.page?.number ?? undefined, size: base.page?.size ?? undefined };
    return new PageIterator<ItemOf<K>, QueryResult<K>>(
      (page) => this.query(name, { input: { ...base, page } } as QueryArgs<K>, options),
      first,
    );
  }
}

/** Fails the build when a query of the schema has no method of the same name. */
type MissingMethods = Exclude<QueryName, keyof Client>;
const everyQueryHasAMethod: [MissingMethods] extends [never] ? true : MissingMethods = true;
void everyQueryHasAMethod;
