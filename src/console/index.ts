/**
 * The web console (`wfapi serve` at `/`): the server side is these routes; the browser side is
 * `web/`, bundled by esbuild and talking only to the public `/graphql` through the SDK.
 */

export { CONSOLE_PATH, consoleLink, registerConsoleRoutes } from './console.route.js';
export { BUILT_BUNDLE_DIR, buildConsoleBundle, type ConsoleBundle } from './console-bundle.js';
