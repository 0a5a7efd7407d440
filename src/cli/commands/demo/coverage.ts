/**
 * Which time windows of the demo's data are stored: a set of half-open intervals (after, until]
 * in milliseconds, kept sorted and merged. The simulator produces each window's facts exactly
 * once, so loading exactly the missing windows completes the data without double work.
 */
export type Interval = readonly [after: number, until: number];

/** The set with `interval` added, sorted and merged. */
export function addInterval(set: readonly Interval[], interval: Interval): Interval[] {
  const all = [...set, interval].filter(([after, until]) => until > after).sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [after, until] of all) {
    const last = merged[merged.length - 1];
    if (last && after <= last[1]) last[1] = Math.max(last[1], until);
    else merged.push([after, until]);
  }
  return merged;
}

/** The parts of `range` the set does not cover, oldest first. */
export function missingFrom(set: readonly Interval[], range: Interval): Interval[] {
  const gaps: Interval[] = [];
  let cursor = range[0];
  for (const [after, until] of addInterval(set, [0, 0])) {
    if (until <= cursor) continue;
    if (after >= range[1]) break;
    if (after > cursor) gaps.push([cursor, after]);
    cursor = Math.max(cursor, until);
  }
  if (cursor < range[1]) gaps.push([cursor, range[1]]);
  return gaps;
}

/** Cuts intervals into windows of at most `width`, newest first: recent data is stored first. */
export function newestFirst(intervals: readonly Interval[], width: number): Interval[] {
  const windows: Interval[] = [];
  for (const [after, until] of [...intervals].sort((a, b) => b[1] - a[1])) {
    for (let end = until; end > after; end -= width) windows.push([Math.max(after, end - width), end]);
  }
  return windows;
}

/**
 * The windows cut at `instant`, each list in the order given: the parts after it (loaded before
 * the banner) and the parts up to it (loaded in the background).
 */
export function splitAt(
  windows: readonly Interval[],
  instant: number,
): [newer: Interval[], older: Interval[]] {
  const newer: Interval[] = [];
  const older: Interval[] = [];
  for (const [after, until] of windows) {
    if (until > instant) newer.push([Math.max(after, instant), until]);
    if (after < instant) older.push([after, Math.min(until, instant)]);
  }
  return [newer, older];
}
