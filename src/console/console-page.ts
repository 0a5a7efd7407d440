/**
 * The console's HTML shell. The script and stylesheet URLs carry a hash of their content, so a
 * long cache lifetime is safe. The page needs nothing from another origin.
 */
export function renderConsolePage(scriptUrl: string, styleUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>wfapi console</title>
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
