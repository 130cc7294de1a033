import { resolve } from 'node:path';

/**
 * `--import` target for running TypeScript entry points from any working
 * directory (a bare `tsx` would be resolved relative to the child's cwd).
 */
export const TSX_IMPORT = import.meta.resolve('tsx');
export const CLI_ENTRY = resolve('src/cli.ts');
export const TSX_ARGS = ['--import', TSX_IMPORT, CLI_ENTRY];
