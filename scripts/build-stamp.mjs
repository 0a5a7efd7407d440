#!/usr/bin/env node
// Whether dist/ was built from the sources as they are now, so that `prepare` (which npm runs on
// `npm install` here, and on `npm link` or `npm install /path/to/wfapi` elsewhere: on every
// `npm install` of a project that links this checkout) builds only when something changed.
//
//   node scripts/build-stamp.mjs write   # after a build: records the digest of the inputs
//   node scripts/build-stamp.mjs fresh   # exits 0 when dist/ holds a build of these inputs
//
// The digest covers every file that decides what the build emits: src/, the build scripts and
// configuration, and the dependency versions (package.json, package-lock.json).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const INPUTS = [
  'src',
  'scripts/copy-assets.mjs',
  'scripts/build-console.mjs',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];
const STAMP = join(ROOT, 'dist', '.build-inputs.sha256');

/** The files under `path` (relative to the root), in a stable order. */
function files(path) {
  if (!statSync(join(ROOT, path)).isDirectory()) return [path];
  return readdirSync(join(ROOT, path))
    .sort()
    .flatMap((name) => files(join(path, name)));
}

function digest() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(files)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(ROOT, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const mode = process.argv[2];
if (mode === 'write') {
  writeFileSync(STAMP, `${digest()}\n`);
} else if (mode === 'fresh') {
  const fresh = existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === digest();
  if (fresh) console.log('dist/ is already built from these sources (npm run build rebuilds it)');
  process.exitCode = fresh ? 0 : 1;
} else {
  console.error('usage: node scripts/build-stamp.mjs write|fresh');
  process.exitCode = 2;
}
