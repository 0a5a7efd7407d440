// The migrated database each test file starts from, made once per run of the suite instead of once
// per file: scripts/test.mjs makes it before a database's phase and drops it after, and passes its
// location to the files in WFAPI_TEST_TEMPLATE (a database's name on PostgreSQL, an image file of
// the embedded database's data directory on PGlite), through scripts/test-template.ts. A file run on
// its own migrates its database.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.js';
import { createPglite, pgliteDatabase } from '../../src/db/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** `url` with its database replaced by `name`. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Runs `sql` on the administrative connection of TEST_DATABASE_URL. */
export async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Drops database `name` of TEST_DATABASE_URL's server, closing the connections it still has. */
export function dropDatabase(name: string): Promise<void> {
  return adminQuery(`drop database if exists ${name} with (force)`);
}

/** A name no other database of this server has: `prefix`, the process and random bytes. */
export function scratchName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** Makes the migrated template for `target` (pglite or postgres) and answers its location. */
export async function makeTemplate(target: string): Promise<string> {
  if (target === 'postgres') {
    const name = scratchName('wfapi_template');
    await adminQuery(`create database ${name}`);
    const db = openPostgres(withDatabase(ADMIN_URL, name), { poolSize: 1, statementTimeoutMs: 60_000 });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    return name;
  }
  const raw = await createPglite('memory://');
  const file = join(mkdtempSync(join(tmpdir(), 'wfapi-template-')), 'pglite.tar');
  try {
    await migrate(pgliteDatabase(raw, 'memory://'));
    writeFileSync(file, Buffer.from(await (await raw.dumpDataDir('none')).arrayBuffer()));
  } finally {
    await raw.close();
  }
  return file;
}

/** Drops a template `makeTemplate` made. */
export async function dropTemplate(target: string, location: string): Promise<void> {
  if (target === 'postgres') await dropDatabase(location);
  else rmSync(dirname(location), { recursive: true, force: true });
}
