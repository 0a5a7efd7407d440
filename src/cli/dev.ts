// Runs the CLI from source (development): node --import tsx src/cli/dev.ts <args>
import { processSignals, run } from './run.js';

process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  onSignal: processSignals,
});
