import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, sendError } from '../errors.js';
import { pageHeaders } from '../http/page-headers.js';
import { type ConsoleBundle, loadConsoleBundle } from './console-bundle.js';
import { renderConsolePage } from './console-page.js';

/** Where the console is served; its files live under ASSETS_PATH. */
export const CONSOLE_PATH = '/';
const ASSETS_PATH = '/console/assets';
const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;
const gzipAsync = promisify(gzip);

interface Asset {
  readonly type: string;
  readonly body: Buffer;
  readonly gzipped: Buffer;
  readonly hash: string;
}

interface Loaded {
  readonly page: string;
  readonly assets: Readonly<Record<'console.js' | 'console.css', Asset>>;
}

async function asset(type: string, body: Buffer): Promise<Asset> {
  return {
    type,
    body,
    gzipped: await gzipAsync(body),
    hash: createHash('sha256').update(body).digest('hex').slice(0, 16),
  };
}

async function prepare(bundle: ConsoleBundle): Promise<Loaded> {
  const js = await asset('text/javascript; charset=utf-8', bundle.js);
  const css = await asset('text/css; charset=utf-8', bundle.css);
  return {
    page: renderConsolePage(
      `${ASSETS_PATH}/console.js?v=${js.hash}`,
      `${ASSETS_PATH}/console.css?v=${css.hash}`,
    ),
    assets: { 'console.js': js, 'console.css': css },
  };
}

/** Whether Accept-Encoding allows gzip (listed, and not with q=0). */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.toLowerCase().split(';');
    return coding?.trim() === 'gzip' && !params.some((param) => /^\s*q=0(\.0*)?\s*$/.test(param));
  });
}

/**
 * Serves the console at `/` and its two files. The bundle is loaded (or, from the sources, built)
 * once, on the first request; a failure is logged and answered in the contract's error shape, and
 * the next request tries again.
 */
export function registerConsoleRoutes(app: FastifyInstance): void {
  let loading: Promise<Loaded> | undefined;
  const load = (request: FastifyRequest) => {
    loading ??= loadConsoleBundle()
      .then(prepare)
      .catch((error: unknown) => {
        loading = undefined;
        request.log.error({ err: error }, 'could not load the console bundle');
        throw new AppError('INTERNAL_SERVER_ERROR', 'The console is not available');
      });
    return loading;
  };

  app.get(CONSOLE_PATH, async (request, reply) => {
    const { page } = await load(request);
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .headers(pageHeaders("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'"))
      .send(page);
  });

  app.get<{ Params: { name: string } }>(`${ASSETS_PATH}/:name`, async (request, reply: FastifyReply) => {
    const { assets } = await load(request);
    const name = request.params.name;
    if (!Object.hasOwn(assets, name)) {
      return sendError(
        reply,
        new AppError('ROUTE_NOT_FOUND', `No console asset named ${JSON.stringify(name)}`),
      );
    }
    const file = assets[name as keyof Loaded['assets']];
    const gzipped = acceptsGzip(request.headers['accept-encoding']);
    reply
      .type(file.type)
      .header('cache-control', `public, max-age=${ONE_YEAR_SECONDS}, immutable`)
      .header('vary', 'accept-encoding')
      .header('x-content-type-options', 'nosniff');
    if (gzipped) reply.header('content-encoding', 'gzip');
    return reply.send(gzipped ? file.gzipped : file.body);
  });
}

/** The console's address for a server, signed in with `apiKey` (in the fragment: never sent to the server). */
export function consoleLink(baseUrl: string, apiKey?: string): string {
  const url = new URL(CONSOLE_PATH, baseUrl).toString();
  return apiKey ? `${url}#key=${encodeURIComponent(apiKey)}` : url;
}
