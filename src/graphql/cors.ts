import type { FastifyInstance } from 'fastify';

const EXPOSED = 'retry-after, ratelimit, ratelimit-policy, x-request-id';

/**
 * Lets browser applications on other origins call `/graphql` (the SDK runs in browsers). The API
 * authenticates with a header, never a cookie, so no credentials are allowed and `*` is a safe
 * default; `origins` narrows it to a list. Preflights are answered here, before authentication.
 */
export function registerCors(app: FastifyInstance, origins: '*' | readonly string[]): void {
  // Callback style: most requests carry no Origin, and an async hook costs each a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (!origin || !request.url.startsWith('/graphql') || (origins !== '*' && !origins.includes(origin))) {
      return done();
    }
    reply.header('access-control-allow-origin', origins === '*' ? '*' : origin);
    if (origins !== '*') reply.header('vary', 'origin');
    reply.header('access-control-expose-headers', EXPOSED);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      // Answered here: the request goes no further (done is not called).
      reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST')
        .header('access-control-allow-headers', 'authorization, content-type, accept, x-request-id')
        .header('access-control-max-age', '600')
        .send();
      return;
    }
    done();
  });
}
