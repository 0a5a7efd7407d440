import { inlineSource, pageHeaders } from '../http/page-headers.js';
import { KEY_PATTERN } from '../modules/auth/api-key.js';
import { graphiqlAssetUrl } from './graphiql-assets.js';

/** What the headers editor shows first: the one header every query needs. */
const HEADERS_TEMPLATE = JSON.stringify({ Authorization: 'Apikey <your key>' }, null, 2);

/** The query a new visitor finds in the editor: it runs as it is once a key is in the headers. */
export const EXAMPLE_QUERY = `# Welcome to wfapi's GraphiQL.
#
# 1. Put your API key in the Headers tab below, in place of <your key>
#    (\`npm start\` prints one). The schema loads as soon as a key is there:
#    then Docs (top left) and Ctrl-Space show every query and field.
# 2. Run this query with the button above (or Ctrl-Enter).
query Overview {
  getOrganization {
    displayName
  }
  workflows(input: { page: { size: 5 } }) {
    count
    data {
      name
      status
      executedAt
      executionCountByStatus {
        success
        failure
      }
    }
  }
}
`;

/**
 * The page's own script. GraphiQL would fetch the schema at once, and a request without a key
 * is a failed authentication (charged to the address's budget): so the schema stays unset (null)
 * until the Authorization header holds something shaped like a key, then GraphiQL fetches it,
 * and again whenever the key changes (a new fetcher). A query run without such a key is answered
 * here, without a request, with what to do.
 */
const SCRIPT = `
const KEY = new RegExp(${JSON.stringify(`^\\s*apikey\\s+${KEY_PATTERN.source.slice(1, -1)}\\s*$`)}, 'i');
const STORED_HEADERS = 'graphiql:headers';
const DEFAULT_HEADERS = ${JSON.stringify(HEADERS_TEMPLATE)};
const NO_KEY = {
  errors: [{
    message: 'Nothing was sent: the Headers tab needs your API key, as {"Authorization": "Apikey wfk_..."}.',
    extensions: { code: 'UNAUTHENTICATED' },
  }],
};

function hasKey(headers) {
  if (!headers || typeof headers !== 'object') return false;
  return Object.entries(headers).some(
    ([name, value]) => name.toLowerCase() === 'authorization' && typeof value === 'string' && KEY.test(value),
  );
}

function keyIn(text) {
  try {
    const headers = JSON.parse(text || '{}');
    const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === 'authorization');
    return entry && typeof entry[1] === 'string' && KEY.test(entry[1]) ? entry[1].trim() : undefined;
  } catch {
    return undefined;
  }
}

const send = GraphiQL.createFetcher({ url: location.pathname });

function makeFetcher() {
  return (params, options) => {
    if (!hasKey(options && options.headers)) return Promise.resolve(NO_KEY);
    const answer = send(params, options);
    // A refused introspection is not retried without its subscription fields: one request, not two.
    if (params.operationName !== 'IntrospectionQuery' || !answer || typeof answer.then !== 'function') return answer;
    return answer.then((result) => (result && typeof result === 'object' && !('data' in result) ? { data: null, ...result } : result));
  };
}

function App() {
  const [key, setKey] = React.useState(() => keyIn(localStorage.getItem(STORED_HEADERS) || DEFAULT_HEADERS));
  const fetcher = React.useMemo(makeFetcher, [key]);
  const keepKey = (next) => {
    if (next) setKey(next);
  };
  return React.createElement(GraphiQL, {
    fetcher,
    schema: key ? undefined : null,
    defaultQuery: ${JSON.stringify(EXAMPLE_QUERY)},
    defaultHeaders: DEFAULT_HEADERS,
    defaultEditorToolsVisibility: 'headers',
    shouldPersistHeaders: true,
    // A key, once there, stays until another replaces it: an edit in progress or a tab event
    // carrying the headers of a moment ago must not drop the schema and fetch it again.
    onEditHeaders: (text) => keepKey(keyIn(text)),
    onTabChange: (state) => {
      const tab = state.tabs[state.activeTabIndex];
      keepKey(keyIn(tab && tab.headers));
    },
  });
}

ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(App));
`;

const INLINE_SCRIPT = SCRIPT.replace(/<\/script/gi, '<\\/script');
const INLINE_STYLE = 'body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }';

/**
 * What the page may load: this server's files, its own inline script and style (by hash), data:
 * fonts and images (GraphiQL's stylesheet embeds its fonts), requests to this server only; the
 * editors set their styles through the DOM, which the policy allows.
 */
export const GRAPHIQL_HEADERS = pageHeaders(
  [
    "default-src 'self'",
    `script-src 'self' ${inlineSource(INLINE_SCRIPT)}`,
    `style-src 'self' ${inlineSource(INLINE_STYLE)}`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
  ].join('; '),
);

let page: string | undefined;

/**
 * The GraphiQL page served to browsers on GET /graphql, with GRAPHIQL_HEADERS. Every file it
 * loads comes from this server (see graphiql-assets.ts), so it works without internet access. It
 * opens on a working example query with the headers editor open and pre-filled with the
 * Authorization header to complete, and sends nothing until that header holds a key.
 */
export function renderGraphiql(): string {
  page ??= `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>wfapi GraphiQL</title>
  <link rel="stylesheet" href="${graphiqlAssetUrl('graphiql.min.css')}" />
  <style>${INLINE_STYLE}</style>
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="${graphiqlAssetUrl('react.production.min.js')}"></script>
  <script src="${graphiqlAssetUrl('react-dom.production.min.js')}"></script>
  <script src="${graphiqlAssetUrl('graphiql.min.js')}"></script>
  <script>${INLINE_SCRIPT}</script>
</body>
</html>`;
  return page;
}
