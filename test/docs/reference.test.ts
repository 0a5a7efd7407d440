import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type GraphQLInputObjectType, getNamedType, isInputObjectType, parse, validate } from 'graphql';
import { createApiKey, createMember, createOrganization } from '../../src/admin/admin.service.js';
import { buildProgram } from '../../src/cli/program.js';
import { buildPublicSchema } from '../../src/graphql/schema.js';
import { RECORD_TYPES } from '../../src/ingest/records.js';
import { buildAdminSchema } from '../../src/operator/operator.schema.js';
import { memoryIo } from '../harness/cli.js';
import { seedDataset } from '../harness/dataset.js';
import { useServer } from '../harness/suite.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const INGEST_TOKEN = 'docs-test-ingest-token';

const read = (path: string) => readFileSync(path, 'utf8');
const pages = readdirSync(DOCS)
  .filter((name) => name.endsWith('.md'))
  .map((name) => join(DOCS, name));
const markdown = [join(ROOT, 'README.md'), ...pages];

/** The text without its fenced code blocks, where brackets and hashes mean something else. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

/** The contents of the fenced blocks of one language. */
const blocks = (text: string, language: string) =>
  [...text.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => m[1]!);

/** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to hyphens. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** A query's documenting page: the one with a heading that is its name in backticks. */
function pageDocumenting(query: string): string | undefined {
  return pages.find((page) => new RegExp(`^#{2,4} \`${query}\`$`, 'm').test(read(page)));
}

describe('the reference in docs/ and the README', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN });

  it('has only relative links that lead to an existing file and heading', () => {
    const broken: string[] = [];
    for (const file of markdown) {
      for (const [, target] of prose(read(file)).matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = path === '' ? file : join(dirname(file), path);
        const where = `${relative(ROOT, file)}: ${target}`;
        if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
        else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor))
          broken.push(`${where} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('links every page of docs/ from its index, and the index from the README', () => {
    const index = read(join(DOCS, 'README.md'));
    for (const page of pages.filter((p) => !p.endsWith('README.md'))) {
      assert.ok(index.includes(`](${relative(DOCS, page)})`), `docs/README.md does not link ${page}`);
    }
    assert.ok(read(join(ROOT, 'README.md')).includes('](docs/README.md)'));
    assert.doesNotMatch(
      read(join(ROOT, 'README.md')),
      /\.\.\/shared\//,
      'users of the package have no ../shared',
    );
  });

  it('documents every query of the schema under its own heading, with every field of its input', () => {
    const schema = buildPublicSchema();
    for (const field of Object.values(schema.getQueryType()!.getFields())) {
      const page = pageDocumenting(field.name);
      assert.ok(page, `no page of docs/ has a heading \`${field.name}\``);
      const text = read(page);
      for (const arg of field.args) {
        const input = getNamedType(arg.type);
        if (!isInputObjectType(input)) continue;
        assert.ok(text.includes(input.name), `${relative(ROOT, page)} does not name ${input.name}`);
        for (const name of Object.keys((input as GraphQLInputObjectType).getFields())) {
          assert.ok(
            text.includes(`\`${name}\``),
            `${relative(ROOT, page)} does not document ${input.name}.${name}`,
          );
        }
      }
    }
    // The hosted API's queries are api.md's.
    for (const query of ['workflows', 'workflowExecution', 'workflowExecutionEvents', 'getOrganization']) {
      assert.equal(pageDocumenting(query), join(DOCS, 'api.md'));
    }
  });

  it('documents every operation and input type of the admin API in docs/operators.md', () => {
    const text = read(join(DOCS, 'operators.md'));
    const schema = buildAdminSchema();
    for (const root of [schema.getQueryType()!, schema.getMutationType()!]) {
      for (const field of Object.values(root.getFields())) {
        assert.ok(text.includes(`\`${field.name}\``), `docs/operators.md does not document ${field.name}`);
        for (const arg of field.args) {
          const input = getNamedType(arg.type).name;
          assert.ok(text.includes(input), `docs/operators.md does not name ${input}`);
        }
      }
    }
  });

  it('shows GraphQL examples in docs/api.md that are valid against the schema', () => {
    const schema = buildPublicSchema();
    const examples = blocks(read(join(DOCS, 'api.md')), 'graphql');
    assert.ok(examples.length >= 5);
    for (const example of examples) assert.deepEqual(validate(schema, parse(example)), [], example);
  });

  it('shows curl examples in docs/api.md that run as written against a real server', async () => {
    const organization = await createOrganization(ctx.db, { displayName: 'Docs' });
    const member = await createMember(ctx.db, {
      organizationId: organization.id,
      emailAddress: 'docs@docs.example',
      displayName: 'Docs',
      deployAccess: true,
    });
    const { key } = await createApiKey(ctx.db, { memberId: member.id, name: 'docs' });
    const data = await seedDataset(ctx.db, organization.id, { start: '2026-11-01T00:00:00Z' });
    const commands = blocks(read(join(DOCS, 'api.md')), 'sh')
      .flatMap((block) => block.replace(/\\\n\s*/g, ' ').split('\n'))
      .filter((line) => line.startsWith('curl '));
    assert.ok(commands.length >= 8, `${commands.length} curl examples`);
    for (const command of commands) {
      const url = /curl -s (\S+)/.exec(command)![1]!.replace('http://127.0.0.1:4000', ctx.server.url);
      const body = /-d '([^']*)'/
        .exec(command)![1]!
        .replaceAll('<workflow uuid>', data.workflows[0]!.uuid as string);
      assert.match(command, /-H 'Content-Type: application\/json'/);
      assert.match(command, /-H "Authorization: Apikey \$WFAPI_API_KEY"/);
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Apikey ${key}` },
        body,
      });
      const answer = await response.json();
      assert.equal(response.status, 200, command);
      assert.equal(answer.errors, undefined, `${command}\n${JSON.stringify(answer.errors)}`);
    }
  });

  it('shows one example of each ingestion record type in docs/ingestion.md, which loads as it is', async () => {
    const [example] = blocks(read(join(DOCS, 'ingestion.md')), 'ndjson');
    assert.ok(example, 'docs/ingestion.md has an ndjson example');
    const lines = example.trimEnd().split('\n');
    const records = lines.map((line) => JSON.parse(line) as { type: string; organizationId: string });
    assert.deepEqual(
      records.map((r) => r.type),
      RECORD_TYPES,
      'one line of each type, in the order they can load',
    );
    const organizationId = records[0]!.organizationId;
    await createOrganization(ctx.db, { displayName: 'Docs', id: organizationId });
    const response = await fetch(`${ctx.server.url}/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/x-ndjson' },
      body: example,
    });
    assert.deepEqual(await response.json(), { accepted: lines.length, rejected: [], rejectedCount: 0 });
  });

  it('lists every command of wfapi in the README', async () => {
    const readme = read(join(ROOT, 'README.md'));
    const table = readme.slice(readme.indexOf('### The command line'), readme.indexOf('## Operating it'));
    for (const command of (await buildProgram([], memoryIo({}).io)).commands) {
      assert.ok(
        table.includes(`\`wfapi ${command.name()}`),
        `the README's command table lacks wfapi ${command.name()}`,
      );
    }
  });
});
