#!/usr/bin/env node
// Runs the test files under test/ (node:test), several processes at a time;
// prints each file as it finishes ("file N of M") and ends with the totals and
// the slowest files.
// Usage: node scripts/test.mjs [path-substring ...]
//
// A browser file runs in a process of its own. The others run in groups of up
// to JOE_TEST_GROUP files (default 8) per process, one file after another:
// loading the app costs a process about a second of CPU, which 170 processes
// paid each run. So a test file leaves what the whole process shares (its
// environment, globals, timers) as it found it. JOE_TEST_GROUP=1 gives every
// file a process of its own again.
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
// JOE_TEST_CPU_PROFILE_DIR: each process writes a V8 CPU profile there.
// JOE_TEST_PG_DSN / JOE_TEST_MYSQL_DSN: see test/helpers/databases.ts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

// The CSS and static assets first: pages link to hashed CSS/JS, so browser tests
// see real styles. TypeScript is compiled below, by esbuild; tsc's own build
// (dist/src, `npm run build`) is not needed to test.
const build = spawnSync(process.execPath, ['scripts/build.mjs', '--assets-only', '--if-needed'], { stdio: 'inherit' });
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

const groupSize = Math.max(1, Number(process.env.JOE_TEST_GROUP ?? 8));
const browserFile = (f) => /^test\/(e2e|extension)\//.test(f);
// The long processes start first, so the run does not end waiting on one of
// them alone: the browser files, then the groups of the rest, each longest
// first as far as their size in bytes tells.
const bytes = (group) => group.reduce((sum, f) => sum + statSync(f).size, 0);
const bySizeDown = (a, b) => bytes(b) - bytes(a);
const queue = files
  .filter(browserFile)
  .map((f) => [f])
  .sort(bySizeDown);
const rest = files.filter((f) => !browserFile(f));
const groups = [];
for (let i = 0; i < rest.length; i += groupSize) groups.push(rest.slice(i, i + groupSize));
queue.push(...groups.sort(bySizeDown));

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
const failedGroups = [];
let done = 0;
const started = Date.now();

const GROUPS = join(COMPILED, 'groups');
mkdirSync(GROUPS, { recursive: true });
let groupCount = 0;

/**
 * The module a process runs: the group's files, imported one after another. A
 * file that fails to load becomes a failing test named after it, and the rest
 * still run.
 */
function groupEntry(group) {
  const entry = join(GROUPS, `${++groupCount}.mjs`);
  const urls = group.map((f) => pathToFileURL(resolve(compiled(f))).href);
  writeFileSync(
    entry,
    `import { test } from 'node:test';\n` +
      `for (const url of ${JSON.stringify(urls)}) {\n` +
      `  try { await import(url); } catch (e) { test(\`loading \${url}\`, () => { throw e; }); }\n` +
      `}\n`,
  );
  return entry;
}

/** Runs a group of files in one process; reports each file as it ends, and resolves when the process has ended. */
function runGroup(group) {
  return new Promise((settle) => {
    const t0 = Date.now();
    const byPath = new Map(group.map((f) => [resolve(compiled(f)), f]));
    const entry = group.length === 1 ? compiled(group[0]) : groupEntry(group);
    const child = spawn(
      process.execPath,
      [
        ...(process.env.JOE_TEST_CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.JOE_TEST_CPU_PROFILE_DIR}`] : []),
        '--import',
        './scripts/test-source-maps.mjs',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=./scripts/test-files-reporter.mjs',
        '--test-reporter-destination=stderr',
        entry,
      ],
      { env: { ...env, JOE_TEST_FILES: JSON.stringify([...byPath.keys()]) }, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] },
    );
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    const reported = new Map();
    let pending = '';
    child.stdio[3].on('data', (c) => {
      const lines = (pending + c.toString('utf8')).split('\n');
      pending = lines.pop();
      for (const line of lines.filter(Boolean)) {
        const r = JSON.parse(line);
        const file = byPath.get(r.file) ?? r.file;
        reported.set(file, r);
        report({ file, ms: r.ms, tests: r.tests, ok: !r.failed });
      }
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString('utf8');
      // The spec reporter ends with "ℹ tests 12", "ℹ pass 12", … (colours stripped).
      for (const m of output.replace(/\x1b\[[0-9;]*m/g, '').matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) {
        totals[m[1]] += Number(m[2]);
      }
      const ok = code === 0 && !timedOut;
      const why = timedOut ? ` (ended after ${timeoutMs / 1000}s)` : signal ? ` (${signal})` : code !== 0 ? ` (exit code ${code})` : '';
      // A file the process never finished (it crashed or was ended) reports here.
      for (const file of group.filter((f) => !reported.has(f))) report({ file, ms: Date.now() - t0, tests: 0, ok, why });
      if (!ok) {
        failedGroups.push(group);
        process.stdout.write(`\n${output}\n`);
      } else if (process.env.JOE_TEST_VERBOSE) {
        process.stdout.write(output);
      }
      settle();
    });
  });
}

function report({ file, ms, tests, ok, why = '' }) {
  done += 1;
  timings.push({ file, ms });
  if (!ok) failed.push(file);
  process.stdout.write(
    `${ok ? '✔' : '✖'} file ${done} of ${files.length}: ${file} — ${tests} test${tests === 1 ? '' : 's'}, ${(ms / 1000).toFixed(1)}s${why}\n`,
  );
}

async function worker() {
  for (let group = queue.shift(); group !== undefined; group = queue.shift()) await runGroup(group);
}

await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
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
if (failed.length > 0 || failedGroups.length > 0) {
  // A process can fail after its files passed (an error thrown once they were done): its files are named.
  const named = failed.length > 0 ? failed : failedGroups.flat();
  console.log(`\nfailed files:\n${named.map((f) => `  ${f}`).join('\n')}`);
  process.exit(1);
}
