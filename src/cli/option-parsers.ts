import { InvalidArgumentError } from 'commander';

/**
 * A commander parser for a repeatable, comma-separated list of enum values (`--status
 * failure,success`): case-insensitive, each checked against `allowed`.
 */
export function enumListOption<T extends string>(allowed: readonly T[]) {
  return (text: string, previous: T[] | undefined): T[] => {
    const values = text
      .split(',')
      .map((value) => value.trim().toUpperCase())
      .filter((value) => value !== '');
    const wrong = values.find((value) => !(allowed as readonly string[]).includes(value));
    if (wrong !== undefined || values.length === 0) {
      throw new InvalidArgumentError(`Expected one or more of ${allowed.join(', ')}.`);
    }
    return [...(previous ?? []), ...(values as T[])];
  };
}

/** A commander parser for a whole number of at least `min` (`--limit 50`). */
export function integerOption(min: number) {
  return (text: string): number => {
    const value = Number(text);
    if (!/^\d+$/.test(text.trim()) || value < min || !Number.isSafeInteger(value)) {
      throw new InvalidArgumentError(`Expected a whole number of at least ${min}.`);
    }
    return value;
  };
}

/** A commander parser for any finite number (`--target 0.99`); its bounds are the server's to check. */
export function number(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new InvalidArgumentError('expected a number');
  return parsed;
}

/** A commander parser for any integer (`--period-days 28`); its bounds are the server's to check. */
export function integer(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new InvalidArgumentError('expected an integer');
  return parsed;
}
