import { after, afterEach, before } from 'node:test';
import type { AppOptions } from '../../src/app.js';
import type { ConfigOverrides } from '../../src/config.js';
import { openTestDatabase, type TestDatabase } from './database.js';
import { startServer, type TestServer } from './server.js';

/**
 * Opens a fresh database and a real server for a test file, empties the tables after each test
 * and shuts both down at the end. Use the returned getters inside tests.
 */
export function useServer(overrides: ConfigOverrides = {}, options: Omit<AppOptions, 'db'> = {}) {
  let database: TestDatabase;
  let server: TestServer;
  before(async () => {
    database = await openTestDatabase();
    server = await startServer(database.db, overrides, options);
  });
  afterEach(async () => {
    await database.reset();
  });
  after(async () => {
    await server?.close();
    await database?.close();
  });
  return {
    get db() {
      return database.db;
    },
    get database() {
      return database;
    },
    get server() {
      return server;
    },
  };
}

/**
 * A second real server on the database of `suite` (a useServer), with other configuration (a
 * small budget, a tight limit): started before the file's tests and closed after them.
 */
export function useServerBeside(suite: { readonly db: TestDatabase['db'] }, overrides: ConfigOverrides) {
  let server: TestServer;
  before(async () => {
    server = await startServer(suite.db, overrides);
  });
  after(async () => {
    await server?.close();
  });
  return {
    get server() {
      return server;
    },
  };
}
