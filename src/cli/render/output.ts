import type { CliIo } from '../io.js';

/** Machine output: one JSON document on the run's standard output. */
export function writeJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Human output: text on the run's standard output, ending with one newline. */
export function writeText(io: CliIo, text: string): void {
  io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
