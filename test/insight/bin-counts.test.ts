// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BinCounts } from '../../src/rollups/bin-counts.js';
import { LOWER_BOUNDS } from '../../src/rollups/duration-bins.js';
import { seeded } from '../ingest/dataset.js';

const entries = (bins: BinCounts) => {
  const seen: Array<[number, number]> = [];
  bins.forEach((bin, n) => {
    seen.push([bin, n]);
  });
  return seen;
};

/** The reference: a map from bin to count, summed the obvious way, listed ascending without zeros. */
function referenceOf(histograms: ReadonlyArray<{ lo: number; counts: number[] }>): Array<[number, number]> {
  const sums = new Map<number, number>();
  for (const { lo, counts } of histograms) {
    counts.forEach((n, i) => {
      sums.set(lo + i, (sums.get(lo + i) ?? 0) + n);
    });
  }
  return [...sums].filter(([, n]) => n !== 0).sort(([a], [b]) => a - b);
}

describe('bin counts as a read sums them', () => {
  it('sums histograms read as text into the same counts as a map, whichever way their bins grow', () => {
    const random = seeded(7);
    for (let round = 0; round < 200; round++) {
      const histograms = Array.from({ length: 1 + Math.floor(random() * 12) }, () => {
        const lo = Math.floor(random() * (LOWER_BOUNDS.length - 80));
        // Mostly empty bins, some large counts, now and then a removal (a negative count).
        const counts = Array.from({ length: 1 + Math.floor(random() * 80) }, () => {
          const r = random();
          return r < 0.6 ? 0 : r < 0.95 ? Math.floor(random() * 1_000) : -Math.floor(random() * 5);
        });
        return { lo, counts };
      });
      const bins = new BinCounts();
      for (const { lo, counts } of histograms) bins.addText(lo, counts.join(','));
      assert.deepEqual(entries(bins), referenceOf(histograms));

      // Summed in two halves and then together, as capability statistics add a capability's statuses.
      const half = Math.floor(histograms.length / 2);
      const [left, right, both] = [new BinCounts(), new BinCounts(), new BinCounts()];
      for (const { lo, counts } of histograms.slice(0, half)) left.addText(lo, counts.join(','));
      for (const { lo, counts } of histograms.slice(half)) right.addText(lo, counts.join(','));
      both.addAll(left);
      both.addAll(right);
      assert.deepEqual(entries(both), referenceOf(histograms));
    }
  });

  it('counts single items added in any order of bins as a map does', () => {
    const random = seeded(11);
    for (let round = 0; round < 100; round++) {
      const items = Array.from({ length: Math.floor(random() * 300) }, () =>
        Math.floor(random() * LOWER_BOUNDS.length),
      );
      const bins = new BinCounts();
      for (const bin of items) bins.addOne(bin);
      const ones = items.map((bin) => ({ lo: bin, counts: [1] }));
      assert.deepEqual(entries(bins), referenceOf(ones));
    }
  });

  it('reads a histogram whose bins start at zero or reach the last bin', () => {
    const bins = new BinCounts();
    bins.addText(LOWER_BOUNDS.length - 2, '3,4');
    bins.addText(0, '1,0,0,12345678901');
    bins.addText(1, '');
    assert.deepEqual(entries(bins), [
      [0, 1],
      [3, 12_345_678_901],
      [LOWER_BOUNDS.length - 2, 3],
      [LOWER_BOUNDS.length - 1, 4],
    ]);
    assert.deepEqual(entries(new BinCounts()), []);
  });
});
