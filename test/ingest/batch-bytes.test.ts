// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchBytesFor } from '../../src/ingest/ingest-stream.js';

const MB = 2 ** 20;

describe('the bytes of lines an ingestion batch holds', () => {
  it('are 16 MB on a default heap of several gigabytes', () => {
    assert.equal(batchBytesFor(4144 * MB), 16 * MB);
  });

  it('are a sixteenth of a small heap, so a server started with --max-old-space-size=64 (a 112 MB heap) holds 7 MB', () => {
    assert.equal(batchBytesFor(112 * MB), 7 * MB);
  });

  it('are never below 1 MB, however small the heap', () => {
    assert.equal(batchBytesFor(4 * MB), MB);
  });
});
