// A node:test reporter that counts every test of a run and writes one JSON line at its end:
// {"passed":N,"failed":N,"skipped":N,"files":{path:ms}}, the files' times being the sum of their
// top-level tests' and suites' durations (what `npm test` lists as the slowest files). scripts/test.mjs gives it a file of its own
// (--test-reporter-destination) beside the spec reporter on stdout, so the counts never depend on
// how long the printed output is.
//
// What counts, from the events node:test reports (a suite's event follows its children's):
// - every test that is not a suite: passed, failed (cancelled ones too), or skipped (skip, todo);
// - a skipped suite counts as one skipped test (node reports its children not at all);
// - a failed suite counts as one failed test when no test inside it failed (a failed `after`
//   hook), so a failing run never closes with "0 failed";
// - a file that fails outside any test (a top-level throw, a timeout) is reported by node as a
//   test named after the file: one failed test.

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A test worker (scripts/test-worker.mjs) runs each file inside a top-level suite named after the
 * file: that suite's events count as the file's own.
 */
const WORKER = fileURLToPath(new URL('./test-worker.mjs', import.meta.url));
const fileOf = (data) => (data.nesting === 0 && data.file === WORKER ? resolve(data.name) : data.file);
/**
 * A worker's own entry (scripts/test.mjs writes queue-N/worker-M.mjs): node reports it as a test
 * when it ran no file (the other workers took them all), which is no test of the suite; a worker
 * that failed (its process died) counts as a failure.
 */
const isIdleWorker = (event) =>
  event.type === 'test:pass' &&
  event.data.nesting === 0 &&
  /[\\/]queue-\d+[\\/]worker-\d+\.mjs$/.test(event.data.file ?? '');

export default async function* countTests(source) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  /** Per file, per depth: failures seen below the node at that depth that has not ended yet. */
  const pendingByFile = new Map();
  /** Per file, the milliseconds its top-level tests and suites took. */
  const files = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (isIdleWorker(event)) continue;
    const { data } = event;
    const file = fileOf(data);
    if (data.nesting === 0 && file) {
      files[file] = (files[file] ?? 0) + Math.round(data.details?.duration_ms ?? 0);
    }
    const pending = pendingByFile.get(file) ?? [];
    pendingByFile.set(file, pending);
    const depth = data.nesting;
    const failuresInside = pending[depth] ?? 0;
    pending.length = depth;
    const failed = event.type === 'test:fail';
    let failure = false;
    if (data.details?.type === 'suite') {
      if (data.skip !== undefined || data.todo !== undefined) counts.skipped += 1;
      else if (failed && failuresInside === 0) failure = true;
    } else if (failed) failure = true;
    else if (data.skip !== undefined || data.todo !== undefined) counts.skipped += 1;
    else counts.passed += 1;
    if (failure) {
      counts.failed += 1;
      for (let d = 0; d < depth; d += 1) pending[d] = (pending[d] ?? 0) + 1;
    }
  }
  yield `${JSON.stringify({ ...counts, files })}\n`;
}
