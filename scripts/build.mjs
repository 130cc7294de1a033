#!/usr/bin/env node
// Compiles TypeScript to dist/ and builds the CSS bundle.
// --if-needed skips the work when its output is newer than every source file.
// --assets-only builds the CSS bundle and static assets alone (the test runner
// compiles the sources its own way, scripts/test.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  let t = 0;
  if (!existsSync(dir)) return t;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

const assetsOnly = process.argv.includes('--assets-only');
const stamp = assetsOnly ? 'static/build/.build-stamp' : 'dist/.build-stamp';
if (process.argv.includes('--if-needed') && existsSync(stamp)) {
  const built = statSync(stamp).mtimeMs;
  const sources = Math.max(newest('src'), newest('static'), statSync('package.json').mtimeMs);
  if (built >= sources) process.exit(0);
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (!assetsOnly) run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
if (existsSync('scripts/build-assets.mjs')) run(process.execPath, ['scripts/build-assets.mjs']);
import('node:fs').then((fs) => fs.writeFileSync(stamp, new Date().toISOString() + '\n'));
