import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The console's browser files: one script and one stylesheet. */
export interface ConsoleBundle {
  readonly js: Buffer;
  readonly css: Buffer;
}

const here = dirname(fileURLToPath(import.meta.url));
/** Run from `src/` (tsx, tests): the bundle is built from the sources on first use. */
const fromSource = import.meta.url.endsWith('.ts');
/** Where `npm run build` writes the bundle, next to the compiled server code. */
export const BUILT_BUNDLE_DIR = join(here, 'assets');
const SOURCE_DIR = fromSource ? here : join(here, '..', '..', 'src', 'console');

/**
 * Bundles `web/main.tsx` with esbuild (a build-time tool, a devDependency): Preact, the
 * SDK and the console's code in one minified ES module and one stylesheet, nothing fetched at
 * run time from anywhere else.
 */
export async function buildConsoleBundle(): Promise<ConsoleBundle> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(SOURCE_DIR, 'web', 'main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    write: false,
    outdir: 'out',
    logLevel: 'silent',
  });
  const file = (ext: string) => {
    const found = result.outputFiles.find((f) => f.path.endsWith(ext));
    if (!found) throw new Error(`the console bundle has no ${ext} file`);
    return Buffer.from(found.contents);
  };
  return { js: file('.js'), css: file('.css') };
}

/**
 * The bundle the server sends: the one `npm run build` wrote when running compiled code, else
 * (running from the sources) a fresh build of the sources, so tests always see the current code.
 */
export async function loadConsoleBundle(): Promise<ConsoleBundle> {
  if (fromSource) return buildConsoleBundle();
  const [js, css] = await Promise.all([
    readFile(join(BUILT_BUNDLE_DIR, 'console.js')),
    readFile(join(BUILT_BUNDLE_DIR, 'console.css')),
  ]);
  return { js, css };
}
