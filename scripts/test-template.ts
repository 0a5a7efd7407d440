// The suite's per-run template database (test/harness/template.ts), for scripts/test.mjs:
//   tsx scripts/test-template.ts make pglite|postgres          prints its location
//   tsx scripts/test-template.ts drop pglite|postgres LOCATION
import { dropTemplate, makeTemplate } from '../test/harness/template.js';

const [verb, target, location] = process.argv.slice(2);
if (verb === 'make' && (target === 'pglite' || target === 'postgres')) {
  process.stdout.write(`${await makeTemplate(target)}\n`);
} else if (verb === 'drop' && (target === 'pglite' || target === 'postgres') && location) {
  await dropTemplate(target, location);
} else {
  process.stderr.write('usage: test-template.ts make pglite|postgres | drop pglite|postgres LOCATION\n');
  process.exit(2);
}
