import type { Command } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import type { CliIo } from '../../io.js';
import { stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { outputWidth } from '../../render/width.js';
import { inspectExecution } from './main.js';
import { renderExecution } from './render.js';

interface ExecutionOptions extends ConnectionOptions {
  allNodes?: boolean;
}

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    program
      .command('execution')
      .description('Show one execution: summary, errors, capability timeline and logs')
      .argument('<uuid>', 'execution uuid')
      .option(
        '--all-nodes',
        'show a message every node logged once per node (by default once, with the number of nodes)',
      ),
  ).action(
    withClient(
      async (client, uuid: string, options: ExecutionOptions) => {
        const report = await inspectExecution(client, uuid);
        if (options.json) writeJson(io, report);
        else
          writeText(
            io,
            renderExecution(report, stdoutPalette(io), {
              width: outputWidth(io.stdout, io.env),
              allNodes: options.allNodes === true,
            }),
          );
      },
      (_uuid, options) => options,
    ),
  );
}
