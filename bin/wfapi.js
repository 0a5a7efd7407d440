#!/usr/bin/env node
// The `wfapi` command: a shim over the compiled CLI (`npm install` builds dist/ via `prepare`).
import { processIo, run } from '../dist/cli/run.js';

process.exitCode = await run(process.argv.slice(2), processIo());
