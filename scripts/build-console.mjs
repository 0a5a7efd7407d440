#!/usr/bin/env node
// Bundles the web console (src/console/web) into dist/console/assets with the compiled
// builder, so that the installed package serves it without esbuild. Run by `npm run build`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BUILT_BUNDLE_DIR, buildConsoleBundle } from '../dist/console/index.js';

const bundle = await buildConsoleBundle();
mkdirSync(BUILT_BUNDLE_DIR, { recursive: true });
writeFileSync(join(BUILT_BUNDLE_DIR, 'console.js'), bundle.js);
writeFileSync(join(BUILT_BUNDLE_DIR, 'console.css'), bundle.css);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
console.log(
  `console bundle: ${kb(bundle.js.length)} JavaScript (${kb(gzipSync(bundle.js).length)} gzipped), ${kb(bundle.css.length)} CSS`,
);
