const COMMA = 0x2c;
const MINUS = 0x2d;
const ZERO = 0x30;

/** Bins added beyond a new bin on each side when the run grows, so that neighbours seldom regrow it. */
const SLACK = 16;

/**
 * A histogram's bin counts as a read sums them: one dense run of counts from bin `first`, grown
 * when a row brings bins outside it. A duration histogram's bins are few hundred at most and
 * adjacent (log-scale, duration-bins.ts), so an array indexed by bin costs less to add into and
 * to walk in order than a map: the organization's capability statistics sum about 19,000 bins
 * from 190 rows, and a map's lookups and the sorting of its entries for percentiles took a
 * quarter of the server's time for them (490 µs a request; 255 with this).
 */
export class BinCounts {
  #first = 0;
  #counts: number[] = [];

  /**
   * Adds the counts of the text form `array_to_string(h, ',', '0')` of a histogram whose first
   * bin is `lo`. Scanned in place rather than split: a string per bin was the largest cost of a
   * capability's statistics. An empty bin ("0") is stepped over in one move.
   */
  addText(lo: number, text: string): void {
    const end = text.length;
    if (end === 0) return;
    // Each bin takes at least two characters (a digit and a comma) but the last.
    this.#cover(lo, lo + ((end + 1) >> 1));
    const counts = this.#counts;
    let index = lo - this.#first;
    let i = 0;
    while (i < end) {
      let code = text.charCodeAt(i);
      if (code === ZERO && (i + 1 === end || text.charCodeAt(i + 1) === COMMA)) {
        index++;
        i += 2;
        continue;
      }
      let sign = 1;
      if (code === MINUS) {
        sign = -1;
        i++;
      }
      let count = 0;
      for (; i < end; i++) {
        code = text.charCodeAt(i);
        if (code === COMMA) break;
        count = count * 10 + (code - ZERO);
      }
      counts[index]! += sign * count;
      index++;
      i++;
    }
  }

  /** Adds one to the count of `bin`. */
  addOne(bin: number): void {
    this.#cover(bin, bin + 1);
    this.#counts[bin - this.#first]! += 1;
  }

  /** A copy, whose counts change apart from these. */
  copy(): BinCounts {
    const copy = new BinCounts();
    copy.#first = this.#first;
    copy.#counts = this.#counts.slice();
    return copy;
  }

  /** Adds every count of `other`. */
  addAll(other: BinCounts): void {
    const from = other.#first;
    const counts = other.#counts;
    if (counts.length === 0) return;
    this.#cover(from, from + counts.length);
    const offset = from - this.#first;
    for (let i = 0; i < counts.length; i++) this.#counts[offset + i]! += counts[i]!;
  }

  /** The bins the run holds (a measure of its memory). */
  get span(): number {
    return this.#counts.length;
  }

  /** Calls `fn` for each bin with a count other than zero, in ascending order of bin. */
  forEach(fn: (bin: number, count: number) => void): void {
    const counts = this.#counts;
    for (let i = 0; i < counts.length; i++) {
      if (counts[i] !== 0) fn(this.#first + i, counts[i]!);
    }
  }

  /** Makes the run hold bins [from, to). */
  #cover(from: number, to: number): void {
    const counts = this.#counts;
    const first = this.#first;
    if (counts.length === 0) {
      this.#first = Math.max(0, from - SLACK);
      this.#counts = new Array(to + SLACK - this.#first).fill(0);
      return;
    }
    const end = first + counts.length;
    if (from >= first && to <= end) return;
    const newFirst = from < first ? Math.max(0, from - SLACK) : first;
    const newEnd = to > end ? to + SLACK : end;
    const grown: number[] = new Array(newEnd - newFirst).fill(0);
    for (let i = 0; i < counts.length; i++) grown[first - newFirst + i] = counts[i]!;
    this.#first = newFirst;
    this.#counts = grown;
  }
}
