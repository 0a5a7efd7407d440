import { stripVTControlCharacters } from 'node:util';

/**
 * Terminal colours, off unless the output is a terminal, always off with NO_COLOR
 * (https://no-color.org) and on with FORCE_COLOR, so that pipes and files get plain text.
 */

type Env = Readonly<Record<string, string | undefined>>;

export function colorsEnabled(stream: { isTTY?: boolean }, env: Env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

const CODES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
} as const;

export type Style = keyof typeof CODES;
export type Palette = { readonly enabled: boolean } & { readonly [S in Style]: (text: string) => string };

export function palette(enabled: boolean): Palette {
  const styles = Object.fromEntries(
    Object.entries(CODES).map(([name, [open, close]]) => [
      name,
      enabled ? (text: string) => `\u001b[${open}m${text}\u001b[${close}m` : (text: string) => text,
    ]),
  ) as Record<Style, (text: string) => string>;
  return { enabled, ...styles };
}

/** The palette for a run's standard output, in its environment. */
export function stdoutPalette(io: { readonly stdout: { isTTY?: boolean }; readonly env: Env }): Palette {
  return palette(colorsEnabled(io.stdout, io.env));
}

/** Columns a string takes on a terminal (colour codes take none). */
export function visibleLength(text: string): number {
  return [...stripVTControlCharacters(text)].length;
}

/** The style of a status word: success green, failure red, in flight yellow, the rest dim. */
export function statusStyle(status: string | null | undefined): Style {
  switch (status) {
    case 'SUCCESS':
    case 'ACTIVE':
      return 'green';
    case 'FAILURE':
    case 'FAILED':
    case 'USER_ERROR':
    case 'SYSTEM_ERROR':
      return 'red';
    case 'IN_PROGRESS':
    case 'TRIGGERED':
    case 'PENDING':
    case 'PAUSED':
      return 'yellow';
    default:
      return 'dim';
  }
}
