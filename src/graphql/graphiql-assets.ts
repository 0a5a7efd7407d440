import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { AppError, sendError } from '../errors.js';

/**
 * GraphiQL's browser files, served by the server itself so that the page works offline and never
 * depends on a CDN. Only the files named here are served; the URL names no file system path.
 * `npm run build` copies them from node_modules next to the compiled code (graphiql, react and
 * react-dom are build-time dependencies, like the console's); run from src/ (tsx, tests), they
 * are read from node_modules.
 */
export const GRAPHIQL_ASSETS_PATH = '/graphiql/assets';

const require = createRequire(import.meta.url);
/** Where `npm run build` writes the files and their packages' versions (`versions.json`). */
export const BUILT_GRAPHIQL_DIR = join(dirname(fileURLToPath(import.meta.url)), 'graphiql-assets');
const fromSource = import.meta.url.endsWith('.ts');

interface AssetSource {
  readonly pkg: 'graphiql' | 'react' | 'react-dom';
  readonly file: string;
  readonly type: string;
}

const SOURCES = {
  'graphiql.min.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css; charset=utf-8' },
  'graphiql.min.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript; charset=utf-8' },
  'react.production.min.js': {
    pkg: 'react',
    file: 'umd/react.production.min.js',
    type: 'text/javascript; charset=utf-8',
  },
  'react-dom.production.min.js': {
    pkg: 'react-dom',
    file: 'umd/react-dom.production.min.js',
    type: 'text/javascript; charset=utf-8',
  },
} as const satisfies Record<string, AssetSource>;

export type GraphiqlAsset = keyof typeof SOURCES;

interface LoadedAsset {
  readonly type: string;
  readonly body: Buffer;
  readonly gzipped: Buffer;
}

type Versions = Record<AssetSource['pkg'], string>;

function packageRoot(pkg: AssetSource['pkg']): string {
  // package.json is resolvable even where a package's `exports` hide its other files.
  return dirname(require.resolve(`${pkg}/package.json`));
}

function installedVersion(pkg: AssetSource['pkg']): string {
  return (require(`${pkg}/package.json`) as { version: string }).version;
}

let builtVersions: Versions | undefined;
function packageVersion(pkg: AssetSource['pkg']): string {
  if (fromSource) return installedVersion(pkg);
  builtVersions ??= JSON.parse(readFileSync(join(BUILT_GRAPHIQL_DIR, 'versions.json'), 'utf8')) as Versions;
  return builtVersions[pkg];
}

/** Where the server reads an asset: the build's copy, or node_modules when run from src/. */
function assetPath(name: GraphiqlAsset): string {
  const source: AssetSource = SOURCES[name];
  return fromSource ? join(packageRoot(source.pkg), source.file) : join(BUILT_GRAPHIQL_DIR, name);
}

/** Copies every asset and its package's version into `dir` (the build's step; see BUILT_GRAPHIQL_DIR). */
export function writeGraphiqlAssets(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const versions: Partial<Versions> = {};
  for (const [name, source] of Object.entries(SOURCES) as Array<[GraphiqlAsset, AssetSource]>) {
    copyFileSync(join(packageRoot(source.pkg), source.file), join(dir, name));
    versions[source.pkg] = installedVersion(source.pkg);
  }
  writeFileSync(join(dir, 'versions.json'), `${JSON.stringify(versions, null, 2)}\n`);
}

/**
 * The URL of an asset. It carries the package version, so that a long cache lifetime is safe:
 * after an upgrade the page asks for a new URL.
 */
export function graphiqlAssetUrl(name: GraphiqlAsset): string {
  return `${GRAPHIQL_ASSETS_PATH}/${name}?v=${packageVersion(SOURCES[name].pkg)}`;
}

const gzipAsync = promisify(gzip);

/** Reads and compresses each file once, on first request; the files never change while running. */
const loaded = new Map<GraphiqlAsset, Promise<LoadedAsset>>();
function load(name: GraphiqlAsset): Promise<LoadedAsset> {
  let asset = loaded.get(name);
  if (!asset) {
    const source: AssetSource = SOURCES[name];
    asset = readFile(assetPath(name)).then(async (body) => ({
      type: source.type,
      body,
      gzipped: await gzipAsync(body),
    }));
    loaded.set(name, asset);
  }
  return asset;
}

/** Whether Accept-Encoding allows gzip (listed, and not with q=0). */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.toLowerCase().split(';');
    return coding?.trim() === 'gzip' && !params.some((param) => /^\s*q=0(\.0*)?\s*$/.test(param));
  });
}

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

export function registerGraphiqlAssets(app: FastifyInstance): void {
  app.get<{ Params: { name: string } }>(`${GRAPHIQL_ASSETS_PATH}/:name`, async (request, reply) => {
    const name = request.params.name;
    if (!Object.hasOwn(SOURCES, name)) {
      return sendError(
        reply,
        new AppError('ROUTE_NOT_FOUND', `No GraphiQL asset named ${JSON.stringify(name)}`),
      );
    }
    const asset = await load(name as GraphiqlAsset);
    const gzipped = acceptsGzip(request.headers['accept-encoding']);
    reply
      .type(asset.type)
      .header('cache-control', `public, max-age=${ONE_YEAR_SECONDS}, immutable`)
      .header('vary', 'accept-encoding')
      .header('x-content-type-options', 'nosniff');
    if (gzipped) reply.header('content-encoding', 'gzip');
    return reply.send(gzipped ? asset.gzipped : asset.body);
  });
}
