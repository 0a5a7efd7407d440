import type { FastifyInstance } from 'fastify';

const EXPOSED = 'retry-after, ratelimit, ratelimit-policy, x-request-id';

/**
 * Lets browser applications on other origins call `/graphql` (the SDK runs in browsers). The API
 * authenticates with a header, never a cookie, so no credentials are allowed and `*` is a safe
 * default; `origins` narrows it to a list. Preflights are answered here, before authentication.
 */
export function registerCors(app: FastifyInstance, origins: '*' | readonly string[]): void {
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin || !request.url.startsWith('/graphql')) return;
    if (origins !== '*' && !origins.includes(origin)) return;
    reply.header('access-control-allow-origin', origins === '*' ? '*' : origin);
    if (origins !== '*') reply.header('vary', 'origin');
    reply.header('access-control-expose-headers', EXPOSED);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      return reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST')
        .header('access-control-allow-headers', 'authorization, content-type, accept, x-request-id')
        .header('access-control-max-age', '600')
        .send();
    }
  });
}
