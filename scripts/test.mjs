#!/usr/bin/env node
// Runs the test files under test/ (node:test), each in a process of its own,
// several at a time; prints each file as it finishes ("file N of M") and ends
// with the totals and the slowest files.
// Usage: node scripts/test.mjs [path-substring ...]
//
// The processes run copies of src/ and test/ compiled by esbuild into
// dist/test-build/ (the same transform tsx applies): loading TypeScript
// through tsx's hooks cost each process about a second of CPU, for about 160
// processes. A test file also runs on its own with
// `node --import tsx --test test/…/x.test.ts`.
//
// JOE_TEST_CONCURRENCY: files at a time (default: cores + 1, since a file
// spends much of its time waiting on a database or a browser).
// JOE_TEST_TIMEOUT_MS: a file still running after this long fails and is ended.
// JOE_TEST_VERBOSE: print the output of passing files too.
// JOE_TEST_PG_DSN / JOE_TEST_MYSQL_DSN: see test/helpers/databases.ts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build as esbuild } from 'esbuild';

const COMPILED = join('dist', 'test-build');

function collect(dir, test = /\.test\.tsx?$/) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p, test));
    else if (test.test(name)) out.push(p);
  }
  return out;
}

// Build first: CLI tests run the compiled entry point as users do, and pages
// link to hashed CSS/JS, so browser tests see real styles.
const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-needed'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

// The sources as tsx would run them (tsconfig.json: ES2022 modules, Preact's JSX), with
// linked source maps for stack traces (scripts/test-source-maps.mjs).
rmSync(COMPILED, { recursive: true, force: true });
await esbuild({
  // The extension's scripts too: its tests import them by relative path.
  entryPoints: [...collect('src', /\.tsx?$/), ...collect('test', /\.tsx?$/), ...collect('integrations', /\.js$/)].filter(
    (f) => !f.endsWith('.d.ts'),
  ),
  outdir: COMPILED,
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  sourcemap: 'linked',
  logLevel: 'warning',
});
const compiled = (file) => join(COMPILED, file.replace(/\.tsx?$/, '.js'));

const filters = process.argv.slice(2);
const files = collect('test').filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const concurrency = Math.max(1, Number(process.env.JOE_TEST_CONCURRENCY ?? availableParallelism() + 1));
// The slowest file takes about two minutes; one that never finishes (a hook
// waiting forever, a handle keeping its process alive) is ended after ten.
const timeoutMs = Number(process.env.JOE_TEST_TIMEOUT_MS ?? 600_000);

// The long files start first, so the run does not end waiting on one of them
// alone: the browser files, then the rest in order.
const weight = (f) => (/^test\/(e2e|extension)\//.test(f) ? 1 : 0);
const queue = [...files].sort((a, b) => weight(b) - weight(a));

// One Chromium for the whole run, when a file will ask for one (test/helpers/browser.ts
// launchBrowser): each file connects and works in contexts of its own.
const env = { ...process.env, NODE_ENV: 'test', FORCE_COLOR: process.stdout.isTTY ? '1' : '0' };
let sharedBrowser = null;
if (existsSync('/usr/bin/chromium') && files.some((f) => readFileSync(f, 'utf8').includes('launchBrowser('))) {
  const { launchSharedBrowser } = await import(pathToFileURL(resolve(compiled('test/helpers/browser.ts'))).href);
  sharedBrowser = await launchSharedBrowser();
  Object.assign(env, sharedBrowser.env);
}

const totals = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
const timings = [];
const failed = [];
let done = 0;
const started = Date.now();

/** Runs one file in its own process; resolves when it has ended, however it ended. */
function runFile(file) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, ['--import', './scripts/test-source-maps.mjs', '--test-reporter=spec', compiled(file)], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString('utf8');
      const counts = {};
      // The spec reporter ends with "ℹ tests 12", "ℹ pass 12", … (colours stripped).
      for (const m of output.replace(/\x1b\[[0-9;]*m/g, '').matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) {
        counts[m[1]] = Number(m[2]);
      }
      resolve({ file, ms: Date.now() - t0, code, signal, timedOut, output, counts });
    });
  });
}

function report(r) {
  done += 1;
  for (const k of Object.keys(totals)) totals[k] += r.counts[k] ?? 0;
  timings.push({ file: r.file, ms: r.ms });
  const ok = r.code === 0 && !r.timedOut;
  const why = r.timedOut ? ` (ended after ${timeoutMs / 1000}s)` : r.signal ? ` (${r.signal})` : '';
  if (!ok) {
    failed.push(r.file);
    process.stdout.write(`\n${r.output}\n`);
  } else if (process.env.JOE_TEST_VERBOSE) {
    process.stdout.write(r.output);
  }
  const tests = r.counts.tests ?? 0;
  process.stdout.write(
    `${ok ? '✔' : '✖'} file ${done} of ${files.length}: ${r.file} — ${tests} test${tests === 1 ? '' : 's'}, ${(r.ms / 1000).toFixed(1)}s${why}\n`,
  );
}

async function worker() {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) report(await runFile(file));
}

await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
await sharedBrowser?.close();

const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;
console.log(`\nslowest files:`);
for (const t of timings.sort((a, b) => b.ms - a.ms).slice(0, 10)) console.log(`  ${seconds(t.ms).padStart(7)}  ${t.file}`);
console.log(
  `\n${totals.tests} tests in ${files.length} files: ${totals.pass} passed, ${totals.fail} failed` +
    (totals.cancelled ? `, ${totals.cancelled} cancelled` : '') +
    (totals.skipped ? `, ${totals.skipped} skipped` : '') +
    (totals.todo ? `, ${totals.todo} todo` : '') +
    ` — ${seconds(Date.now() - started)} with ${concurrency} at a time`,
);
if (failed.length > 0) {
  console.log(`\nfailed files:\n${failed.map((f) => `  ${f}`).join('\n')}`);
  process.exit(1);
}
