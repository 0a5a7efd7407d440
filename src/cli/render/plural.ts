/**
 * A count and its noun, in the singular for exactly one: `1 execution`, `2 executions`,
 * `0 log records`. `many` is the plural when it is not `one` + "s".
 */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
