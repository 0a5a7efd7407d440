#!/usr/bin/env node
// Copies the files the compiled code reads at run time from src/ to dist/, keeping their paths
// (SDL and SQL migrations: tsc emits only JavaScript), and GraphiQL's browser files from
// node_modules (graphiql, react and react-dom are build-time dependencies). Run by `npm run build`
// after tsc.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { BUILT_GRAPHIQL_DIR, writeGraphiqlAssets } from '../dist/graphql/graphiql-assets.js';

const ASSET = /\.(graphql|sql)$/;

function assets(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return assets(path);
    return ASSET.test(entry.name) ? [path] : [];
  });
}

const files = assets('src');
for (const file of files) {
  const target = join('dist', relative('src', file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}
console.log(`copied ${files.length} .graphql and .sql files to dist/`);
writeGraphiqlAssets(BUILT_GRAPHIQL_DIR);
console.log(`copied GraphiQL's browser files to ${relative('.', BUILT_GRAPHIQL_DIR)}`);
