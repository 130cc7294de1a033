#!/usr/bin/env node
// Runs every test file under test/ with node:test through tsx.
// Usage: node scripts/test.mjs [path-substring ...]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (/\.test\.tsx?$/.test(name)) out.push(p);
  }
  return out;
}

// Build first: CLI tests run the compiled entry point as users do, and pages
// link to hashed CSS/JS, so browser tests see real styles.
const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-needed'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const filters = process.argv.slice(2);
const files = collect('test').filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.JOE_TEST_CONCURRENCY ?? '2';
// Each file runs in its own process, and node applies this timeout to each
// file as well as to each test: a file that never finishes (a hook waiting
// forever, a handle keeping its process alive) fails after ten minutes and is
// ended, instead of holding up the run. The slowest file takes about two.
const timeoutMs = process.env.JOE_TEST_TIMEOUT_MS ?? '600000';
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${timeoutMs}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(r.status ?? 1);
