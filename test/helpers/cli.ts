import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The CLI as users run it: its compiled entry point, `node …/src/cli.js`. Under
 * the test runner, the copy it compiled (dist/test-build, the same sources as
 * `npm run build` compiles to dist/); for a file run on its own, that copy or
 * dist/ when only `npm run build` has run. Spawning it is far cheaper than
 * compiling TypeScript in every child.
 */
const TEST_BUILD_ENTRY = resolve('dist/test-build/src/cli.js');
export const CLI_ENTRY = existsSync(TEST_BUILD_ENTRY) ? TEST_BUILD_ENTRY : resolve('dist/src/cli.js');
export const CLI_ARGS = [CLI_ENTRY];

/** `--import` target for child processes that must run TypeScript sources directly. */
export const TSX_IMPORT = import.meta.resolve('tsx');
