import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STATIC_DIR } from '../paths.js';

let manifest: Record<string, string> | null = null;

/**
 * The cache-busting URL of a built asset (`css/app.css` → `/static/build/app.<hash>.css`).
 * Falls back to the unhashed path when assets have not been built.
 */
export function asset(logical: string): string {
  if (manifest === null) {
    const file = join(STATIC_DIR, 'build', 'manifest.json');
    manifest = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  }
  return manifest[logical] ?? `/static/${logical}`;
}
