import type { Command } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import { stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { inspectExecution } from './main.js';
import { renderExecution } from './render.js';

export function register(program: Command): void {
  withConnectionOptions(
    program
      .command('execution')
      .description('Show one execution: summary, errors, capability timeline and logs')
      .argument('<uuid>', 'execution uuid'),
  ).action(
    withClient(
      async (client, uuid: string, options: ConnectionOptions) => {
        const report = await inspectExecution(client, uuid);
        if (options.json) writeJson(report);
        else writeText(renderExecution(report, stdoutPalette(process.env)));
      },
      (_uuid, options) => options,
    ),
  );
}
