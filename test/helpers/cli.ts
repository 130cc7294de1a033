import { resolve } from 'node:path';

/**
 * The CLI as users run it: the compiled entry point (`npm test` builds it
 * first). Spawning it is far cheaper than compiling TypeScript in every child.
 */
export const CLI_ENTRY = resolve('dist/src/cli.js');
export const CLI_ARGS = [CLI_ENTRY];

/** `--import` target for child processes that must run TypeScript sources directly. */
export const TSX_IMPORT = import.meta.resolve('tsx');
