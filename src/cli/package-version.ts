import { readFileSync } from 'node:fs';

/** The package's version, from its package.json (two levels up from both src/cli and dist/cli). */
export function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}
