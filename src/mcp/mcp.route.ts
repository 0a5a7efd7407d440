import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { DocumentCache } from '../graphql/document-cache.js';
import { isJsonContentType } from '../graphql/media-type.js';
import type { PublicContextFactory } from '../graphql/public-context.js';
import { TimeLimit } from '../graphql/time-limit.js';
import type { AdmitKey } from '../http/admit-key.js';
import { inProcessExecutor } from './in-process-executor.js';
import { createMcpServer } from './mcp-server.js';

export interface McpRouteDeps {
  readonly config: Config;
  /** The public schema's documents, shared with `/graphql`. */
  readonly documents: DocumentCache;
  /** The admission of `/graphql`: the same 401, 403, rate limit and headers. */
  readonly admit: AdmitKey;
  /** The context of `/graphql`: the same tenancy, reads and database share. */
  readonly contextFor: PublicContextFactory;
  readonly now?: () => number;
}

/** A JSON-RPC error answered before any MCP server sees the message (as the SDK words its own). */
function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string, headers = {}) {
  return reply
    .code(status)
    .headers(headers)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * `POST /mcp`: the Model Context Protocol's Streamable HTTP transport (contract section 8), in
 * stateless mode: each request gets its own server and transport over an executor bound to the
 * request's context, answered as JSON (docs/decisions.md says why). `GET` and `DELETE` answer 405,
 * as the transport allows a server without a stream of its own or sessions to. Every method is
 * admitted first, exactly as `/graphql` is, so that an unauthenticated caller learns nothing.
 */
export function registerMcpRoute(app: FastifyInstance, deps: McpRouteDeps): void {
  const { config, documents, admit, contextFor } = deps;
  if (!config.mcp) return;
  const queryFields = new Set(Object.keys(documents.schema.getQueryType()?.getFields() ?? {}));
  const now = deps.now ?? Date.now;

  async function post(request: FastifyRequest, reply: FastifyReply) {
    // One time limit for the whole request, admission included, as on /graphql.
    const limit = new TimeLimit(config.limits.requestTimeoutMs);
    let handedOver = false;
    try {
      const principal = await limit.run(() => admit(request, reply), true);
      let body: unknown = request.body;
      if (typeof body === 'string' && isJsonContentType(request.headers['content-type'])) {
        try {
          body = JSON.parse(body);
        } catch {
          return jsonRpcError(reply, 400, -32700, 'Parse error: the body is not valid JSON');
        }
      }
      const logUnexpected = (error: unknown) =>
        request.log.error({ err: error }, 'unexpected error in MCP tool');
      const graphql = inProcessExecutor({
        documents,
        context: contextFor(principal, limit),
        limit,
        queryFields,
        logUnexpected,
      });
      const server = createMcpServer(graphql, { now, logUnexpected });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      // From here the transport writes the response: the headers set so far (rate limit) go with it.
      reply.hijack();
      handedOver = true;
      const response = reply.raw;
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) response.setHeader(name, value as string);
      }
      response.setHeader('x-request-id', request.id);
      response.on('close', () => {
        limit.dispose();
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, response, body);
    } finally {
      if (!handedOver) limit.dispose();
    }
  }

  async function refuse(request: FastifyRequest, reply: FastifyReply) {
    await admit(request, reply);
    return jsonRpcError(
      reply,
      405,
      -32000,
      'Method not allowed: this server is stateless; send each message with POST',
      {
        allow: 'POST',
      },
    );
  }

  app.register(async (scope) => {
    // The body reaches the transport as it came, so that what does not parse is answered as
    // JSON-RPC (a parse error, or 415 for a media type MCP does not use), after admission.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.post('/mcp', { bodyLimit: config.limits.maxBodyBytes }, post);
    scope.get('/mcp', refuse);
    scope.delete('/mcp', refuse);
  });
}
