/**
 * Runs `run` with this process's clock (`Date.now`) moved to start at `startMs`, as
 * lib/dataset-clock.mjs moves a benchmarked server's: for work done in-process on a dataset that
 * must see the dataset's "now" (which windows end now, which buckets still keep their one-minute
 * duration rows: src/rollups/grains.ts). The real clock is back once `run` settles.
 */
export async function onClock<T>(startMs: number, run: () => Promise<T>): Promise<T> {
  const realNow = Date.now;
  const offset = startMs - realNow();
  Date.now = () => realNow() + offset;
  try {
    return await run();
  } finally {
    Date.now = realNow;
  }
}
