import { type Command, Option } from 'commander';
import { type CliIo, onSignal } from '../../io.js';
import { integerOption } from '../../option-parsers.js';
import { demo } from './main.js';

interface DemoOptions {
  port?: string;
  host?: string;
  seed: string;
  days: number;
  workflows: number;
  executions: number;
  live: boolean;
}

const hidden = (flags: string, description: string) => new Option(flags, description).hideHelp();

export function register(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description(
      'Start the server on the embedded database with a lifelike month of demo data (loaded on the first ' +
        'start, reused later) and live executions; prints the endpoint, an API key and the operator tokens',
    )
    .option('-p, --port <port>', 'port to listen on (env PORT, default 4000)')
    .option('-H, --host <host>', 'interface to listen on (env HOST, default 127.0.0.1)')
    // The size of the demo month, for tests and experiments; only the first start uses them.
    .addOption(hidden('--seed <text>', 'simulation seed').default('wfapi-demo'))
    .addOption(hidden('--days <n>', 'days of history').argParser(integerOption(1)).default(30))
    .addOption(hidden('--workflows <n>', 'workflows').argParser(integerOption(1)).default(20))
    .addOption(
      hidden('--executions <n>', 'executions over the days').argParser(integerOption(0)).default(100_000),
    )
    .addOption(hidden('--no-live', 'do not produce live executions'))
    .action(async (options: DemoOptions) => {
      const controller = new AbortController();
      const stop = () => controller.abort();
      const release = onSignal(io, stop);
      try {
        await demo(io.env, options, { stdout: io.stdout, stderr: io.stderr, signal: controller.signal });
      } finally {
        release();
      }
    });
}
