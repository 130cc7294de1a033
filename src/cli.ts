#!/usr/bin/env node
// The `joe-links` executable: package.json's "bin", the container's entry point and operators'
// service units all run dist/src/cli.js, so it stays here; the program lives in cli/.
import { runCli } from './cli/program.js';

await runCli(process.argv);
