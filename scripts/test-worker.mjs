// One of a phase's test workers (scripts/test.mjs starts one per core through `node --test`).
// A worker takes the phase's files one at a time from a queue the workers share, and runs each
// inside a suite named after the file: the file's top-level hooks (a useServer's before, afterEach
// and after) belong to that suite, so they run around that file's tests alone, and its server and
// database are closed before the next file starts. Starting a process, loading the app through tsx
// and opening a database cost about 4 s of CPU per file; a worker pays the first two once.
//
// The queue (WFAPI_TEST_QUEUE) is a directory holding files.json, the phase's files longest first;
// a worker claims file i by creating the directory claim-i, which succeeds for one worker only.
import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe } from 'node:test';
import { pathToFileURL } from 'node:url';

const queue = process.env.WFAPI_TEST_QUEUE;
if (!queue)
  throw new Error('scripts/test-worker.mjs runs under scripts/test.mjs (WFAPI_TEST_QUEUE is unset)');
const { files, fileTimeoutMs } = JSON.parse(readFileSync(join(queue, 'files.json'), 'utf8'));

/** The index of the next file no worker has claimed yet, or undefined when none is left. */
function claim(from) {
  for (let i = from; i < files.length; i += 1) {
    try {
      mkdirSync(join(queue, `claim-${i}`));
      return i;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
  return undefined;
}

for (let i = claim(0); i !== undefined; i = claim(i + 1)) {
  const file = files[i];
  // A file's suite ends before the next is claimed: its tests never share the process with another's.
  await describe(relative(process.cwd(), file), { timeout: fileTimeoutMs }, async () => {
    await import(pathToFileURL(file).href);
  });
}
