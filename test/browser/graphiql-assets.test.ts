// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { COMPILED_CLI, cleanEnv, ROOT, startWfapi } from '../harness/process.js';
import { useServer } from '../harness/suite.js';

const require = createRequire(import.meta.url);

/** A GET whose body is returned as sent (fetch would undo the content encoding). */
function rawGet(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      http
        .get(url, { headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
          );
        })
        .on('error', reject);
    },
  );
}

const EXPECTED_FILES = {
  'graphiql.min.css': 'graphiql/graphiql.min.css',
  'graphiql.min.js': 'graphiql/graphiql.min.js',
  'react.production.min.js': `${require.resolve('react/package.json').replace(/package\.json$/, '')}umd/react.production.min.js`,
  'react-dom.production.min.js': `${require.resolve('react-dom/package.json').replace(/package\.json$/, '')}umd/react-dom.production.min.js`,
} as const;

describe('GraphiQL page and its assets', () => {
  const ctx = useServer();

  async function pageAssetUrls(): Promise<string[]> {
    const response = await fetch(`${ctx.server.url}/graphql`, { headers: { accept: 'text/html' } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    const html = await response.text();
    return [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
  }

  it('serves a page whose every script and stylesheet comes from this server', async () => {
    const urls = await pageAssetUrls();
    assert.equal(urls.length, 4);
    for (const url of urls) assert.match(url, /^\/graphiql\/assets\/[a-z.-]+\?v=\d+\.\d+\.\d+$/);
  });

  it('serves each asset with a year-long immutable cache lifetime, gzipped when the client accepts it', async () => {
    for (const url of await pageAssetUrls()) {
      const name = new URL(url, ctx.server.url).pathname.split('/').pop() as keyof typeof EXPECTED_FILES;
      const original = readFileSync(require.resolve(EXPECTED_FILES[name]));

      const plain = await rawGet(`${ctx.server.url}${url}`);
      assert.equal(plain.status, 200, url);
      assert.match(
        plain.headers['content-type'] ?? '',
        name.endsWith('.css') ? /^text\/css/ : /^text\/javascript/,
      );
      assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.ok(plain.body.equals(original), `${name} differs from the installed file`);

      const gzipped = await rawGet(`${ctx.server.url}${url}`, { 'accept-encoding': 'br, gzip' });
      assert.equal(gzipped.headers['content-encoding'], 'gzip');
      assert.ok(gzipped.body.length < original.length);
      assert.ok(gunzipSync(gzipped.body).equals(original));

      const refused = await rawGet(`${ctx.server.url}${url}`, { 'accept-encoding': 'gzip;q=0' });
      assert.equal(refused.headers['content-encoding'], undefined);
    }
  });

  it('answers 404 in the error shape for any other name, including a path out of the asset folder', async () => {
    for (const path of [
      'graphiql.js',
      'package.json',
      '..%2F..%2Fpackage.json',
      '%2Fetc%2Fpasswd',
      'constructor',
    ]) {
      const response = await fetch(`${ctx.server.url}/graphiql/assets/${path}`);
      assert.equal(response.status, 404, path);
      const body = await response.json();
      assert.equal(body.errors[0].extensions.code, 'NOT_FOUND');
    }
  });
});

describe('GraphiQL served by the compiled server', () => {
  it('reads the files the build copied next to the compiled code, and names their versions in the URLs', async (t) => {
    // The compiled server (bin/wfapi.js over dist/): graphiql, react and react-dom are devDependencies,
    // so an installed wfapi serves the build's copies, never node_modules.
    const serve = startWfapi(['serve'], {
      cli: COMPILED_CLI,
      env: cleanEnv({ WFAPI_DATA_DIR: 'memory://', PORT: '0' }),
    });
    t.after(() => serve.kill());
    const [, url] = await serve.waitFor(/wfapi listening on (http:\/\/\S+)\/graphql/, 60_000, 'stderr');
    const html = await (await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } })).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/graphiql\/assets\/[^"]+)"/g)].map(
      (match) => match[1]!,
    );
    assert.equal(assets.length, 4);
    const versions = JSON.parse(
      readFileSync(join(ROOT, 'dist/graphql/graphiql-assets/versions.json'), 'utf8'),
    ) as Record<string, string>;
    for (const asset of assets) {
      const name = new URL(asset, url).pathname.split('/').pop() as keyof typeof EXPECTED_FILES;
      const pkg = name.split('.')[0]!; // graphiql, react or react-dom
      assert.equal(new URL(asset, url).searchParams.get('v'), versions[pkg], asset);
      const built = readFileSync(join(ROOT, 'dist/graphql/graphiql-assets', name));
      assert.ok(
        built.equals(readFileSync(require.resolve(EXPECTED_FILES[name]))),
        `${name} was not copied as installed`,
      );
      const served = await rawGet(`${url}${asset}`);
      assert.equal(served.status, 200, asset);
      assert.ok(served.body.equals(built), `${name} is not the build's copy`);
    }
  });
});
