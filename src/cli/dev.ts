// Runs the CLI from source (development): node --import tsx src/cli/dev.ts <args>
import { processIo, run } from './run.js';

process.exitCode = await run(process.argv.slice(2), processIo());
