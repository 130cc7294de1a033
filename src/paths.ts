import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root, found by walking up to package.json, so assets resolve the
 * same from src/ (tsx) and dist/src/ (compiled).
 */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('joe-links: cannot locate package root');
    dir = parent;
  }
  return dir;
}

export const ROOT = findRoot();
export const STATIC_DIR = join(ROOT, 'static');
