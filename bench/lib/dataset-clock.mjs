/**
 * Preloaded into a benchmarked server (`node --import`): its clock (`Date.now`, which the
 * server's "now" is read from) starts at BENCH_CLOCK_START_MS, the instant the dataset ends at,
 * and runs on from there. Queries whose windows end now (service levels, the after side of a
 * deployment) then read the dataset's last days, as they would on a live system, instead of the
 * empty weeks between the simulated month and the day the benchmark runs.
 */
const start = Number(process.env.BENCH_CLOCK_START_MS);
if (Number.isFinite(start) && start > 0) {
  const real = Date.now;
  const offset = start - real();
  Date.now = () => real() + offset;
}
