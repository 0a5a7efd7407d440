import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const PRIVATE_DIRECTORY = 0o700;
const PRIVATE_FILE = 0o600;

/** Makes `dir` (and missing parents) and restricts `dir` itself to its owner. */
export function makePrivateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY });
  chmodSync(dir, PRIVATE_DIRECTORY);
}

/**
 * Restricts a directory tree to its owner: directories 0700, files 0600 (symbolic links are
 * left alone). The data directory's own mode already keeps others out of everything below it;
 * this also keeps a file copied out of it, or a directory later opened up, private.
 */
export function keepPrivate(dir: string): void {
  chmodSync(dir, PRIVATE_DIRECTORY);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) keepPrivate(path);
    else if (entry.isFile() && (lstatSync(path).mode & 0o777) !== PRIVATE_FILE) chmodSync(path, PRIVATE_FILE);
  }
}
