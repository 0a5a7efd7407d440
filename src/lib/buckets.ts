import { DAY, HOUR, MINUTE } from './time.js';

export function floorTo(ms: number, widthMs: number): number {
  return Math.floor(ms / widthMs) * widthMs;
}

export function ceilTo(ms: number, widthMs: number): number {
  return Math.ceil(ms / widthMs) * widthMs;
}

/**
 * Width of the workflowActivity buckets for a range: up to 2 hours, 5 minutes; up to 2 days,
 * 1 hour; up to 90 days, 1 day; longer, 7 days.
 */
export function activityBucketWidth(rangeMs: number): number {
  if (rangeMs <= 2 * HOUR) return 5 * MINUTE;
  if (rangeMs <= 2 * DAY) return HOUR;
  if (rangeMs <= 90 * DAY) return DAY;
  return 7 * DAY;
}

export interface Bucket {
  readonly from: number;
  readonly to: number;
}

/** Contiguous buckets of `width`, aligned to UTC multiples of it, covering [from, to]. */
export function bucketsCovering(from: number, to: number, width: number): Bucket[] {
  const buckets: Bucket[] = [];
  for (let start = floorTo(from, width); start <= to; start += width)
    buckets.push({ from: start, to: start + width });
  return buckets;
}
