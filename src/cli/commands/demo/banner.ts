import { consoleLink } from '../../../console/index.js';

export interface BannerInput {
  readonly url: string;
  readonly organization: string;
  readonly apiKey: string;
  readonly keyProblem: string | undefined;
  readonly adminToken: string;
  readonly ingestToken: string;
  /** Whether `/mcp` is served (WFAPI_MCP is not `off`). */
  readonly mcp?: boolean;
  readonly statePath: string;
  /** The demo's webhook rule, its receiver, and the command that lists its deliveries. */
  readonly alerts?: { readonly rule: string; readonly receiverUrl: string; readonly command: string };
  /** One line each on what the data holds and what is still loading. */
  readonly dataLines: readonly string[];
  readonly startupSeconds: number;
}

/** The query the banner's curl sends. */
export const BANNER_QUERY =
  '{ workflows(input: {page: {size: 5}}) { count data { name status executionCount executedAt } } }';

/**
 * What `npm start` prints once the server answers: first the console's link, signed in with the
 * demo key (in the fragment, which browsers never send), then where, with which key, and a query to paste.
 */
export function renderBanner(input: BannerInput): string {
  const body = JSON.stringify({ query: BANNER_QUERY });
  const mcp: Array<[string, string]> =
    input.mcp === false ? [] : [['MCP endpoint', `${input.url}/mcp  (for AI agents: docs/mcp.md)`]];
  const rows: Array<[string, string]> = [
    [
      'console',
      `${consoleLink(input.url, input.keyProblem ? undefined : input.apiKey)}  (open it in a browser)`,
    ],
    ['GraphQL endpoint', `${input.url}/graphql  (open it in a browser for GraphiQL)`],
    ...mcp,
    ['organization', input.organization],
    ['API key', input.keyProblem ? `${input.apiKey}  (refused: ${input.keyProblem})` : input.apiKey],
    ['admin token', `${input.adminToken}  (POST /admin/graphql, Authorization: Bearer <token>)`],
    ['ingest token', `${input.ingestToken}  (POST /ingest, Authorization: Bearer <token>)`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    '',
    `wfapi demo is up (${input.startupSeconds.toFixed(1)} s)`,
    '',
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    '',
    ...input.dataLines.map((line) => `  ${line}`),
    '',
    'Try it:',
    `  curl -s ${input.url}/graphql -H 'Content-Type: application/json' -H 'Authorization: Apikey ${input.apiKey}' -d '${body}'`,
    '',
    ...(input.alerts
      ? [
          `Alerts: the rule "${input.alerts.rule}" posts each new failed execution, signed, to the demo's receiver at ${input.alerts.receiverUrl}. See the deliveries:`,
          `  ${input.alerts.command}`,
          '',
        ]
      : []),
    'The wfapi command: `npm link` once in this checkout puts it on your PATH ("The command line" in the README).',
    'Your own data, with the tokens above: "Your own data" in the README (wfapi simulate --create-org, wfapi ingest);',
    'the reference (the API, the record format, administration) is in docs/.',
    '',
    `The key and tokens are kept in ${input.statePath} (readable only by you): for demos only.`,
    'Stop with Ctrl-C; the next start reuses the data and fills the gap since this run.',
    '',
  ].join('\n');
}
