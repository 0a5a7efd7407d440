/**
 * Exact decimal sums for rollup deltas: credits have at most 18 fractional digits (validated at
 * the edge), so a BigInt of 10^-18 units holds any sum without rounding.
 */
const SCALE = 18;
const UNIT = 10n ** BigInt(SCALE);

export function toUnits(decimal: string | null): bigint {
  if (decimal === null) return 0n;
  const negative = decimal.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? decimal.slice(1) : decimal).split('.');
  const units = BigInt(whole) * UNIT + BigInt(fraction.padEnd(SCALE, '0').slice(0, SCALE) || '0');
  return negative ? -units : units;
}

export function fromUnits(units: bigint): string {
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const fraction = (magnitude % UNIT).toString().padStart(SCALE, '0').replace(/0+$/, '');
  const text = `${magnitude / UNIT}${fraction ? `.${fraction}` : ''}`;
  return negative ? `-${text}` : text;
}
