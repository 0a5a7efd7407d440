// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useServer } from '../harness/suite.js';

describe('pages served to browsers', () => {
  const ctx = useServer();

  for (const [name, path] of [
    ['the console', '/'],
    ['GraphiQL', '/graphql'],
  ] as const) {
    it(`${name} may not be framed by any page (CSP frame-ancestors and X-Frame-Options) and loads scripts from this server only`, async () => {
      const answer = await fetch(`${ctx.server.url}${path}`, { headers: { accept: 'text/html' } });
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type')!, /^text\/html/);
      const policy = answer.headers.get('content-security-policy') ?? '';
      assert.match(policy, /(^|; )frame-ancestors 'none'(;|$)/);
      assert.match(policy, /(^|; )object-src 'none'(;|$)/);
      // Scripts: this server's files and at most inline ones named by hash.
      const scripts =
        /(?:^|; )script-src ([^;]*)/.exec(policy)?.[1] ?? /(?:^|; )default-src ([^;]*)/.exec(policy)![1]!;
      for (const source of scripts.split(' ')) assert.match(source, /^'self'$|^'sha256-[A-Za-z0-9+/]+=*'$/);
      assert.equal(answer.headers.get('x-frame-options'), 'DENY');
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
      await answer.arrayBuffer();
    });
  }
});
