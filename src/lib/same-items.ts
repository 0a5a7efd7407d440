/** Comparing lists item by item. */

/**
 * Whether `a` and `b` hold the same items in the same order, each pair compared by `same`
 * (identity by default); the very same list is the same at once.
 */
export function sameItems<T>(
  a: ArrayLike<T>,
  b: ArrayLike<T>,
  same: (a: T, b: T) => boolean = (x, y) => x === y,
): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!same(a[i]!, b[i]!)) return false;
  return true;
}
