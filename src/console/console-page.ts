/**
 * The console's HTML shell. The script and stylesheet URLs carry a hash of their content, so a
 * long cache lifetime is safe. The page needs nothing from another origin.
 */
/** A small mark of bars, inline (the page's policy allows data: images), so no request is made for it. */
const FAVICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0969da"/><rect x="3" y="8" width="2" height="5" fill="#fff"/><rect x="7" y="5" width="2" height="8" fill="#fff"/><rect x="11" y="3" width="2" height="10" fill="#ff8182"/></svg>',
)}`;

export function renderConsolePage(scriptUrl: string, styleUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>wfapi console</title>
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="${styleUrl}">
</head>
<body>
<div id="console"></div>
<noscript>The wfapi console needs JavaScript. The API itself is at <a href="/graphql">/graphql</a>.</noscript>
<script type="module" src="${scriptUrl}"></script>
</body>
</html>
`;
}
