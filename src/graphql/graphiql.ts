import { graphiqlAssetUrl } from './graphiql-assets.js';

/** What the headers editor shows first: the one header every query needs. */
const HEADERS_TEMPLATE = JSON.stringify({ Authorization: 'Apikey <your key>' }, null, 2);

let page: string | undefined;

/**
 * The GraphiQL page served to browsers on GET /graphql. Every file it loads comes from this
 * server (see graphiql-assets.ts), so it works without internet access. Queries still need an
 * API key: the headers editor is open and pre-filled with the Authorization header to complete.
 */
export function renderGraphiql(): string {
  page ??= `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>wfapi GraphiQL</title>
  <link rel="stylesheet" href="${graphiqlAssetUrl('graphiql.min.css')}" />
  <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="${graphiqlAssetUrl('react.production.min.js')}"></script>
  <script src="${graphiqlAssetUrl('react-dom.production.min.js')}"></script>
  <script src="${graphiqlAssetUrl('graphiql.min.js')}"></script>
  <script>
    const fetcher = GraphiQL.createFetcher({ url: location.pathname });
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, {
        fetcher,
        defaultHeaders: ${JSON.stringify(HEADERS_TEMPLATE)},
        defaultEditorToolsVisibility: 'headers',
        shouldPersistHeaders: true,
      }),
    );
  </script>
</body>
</html>`;
  return page;
}
