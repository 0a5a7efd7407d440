// Runs the CLI from source (tests and development): node --import tsx src/cli/dev.ts <args>
import { run } from './run.js';

process.exitCode = await run(process.argv.slice(2));
