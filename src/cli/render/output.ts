/** Machine output: one JSON document on standard output. */
export function writeJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Human output: text on standard output, ending with one newline. */
export function writeText(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
