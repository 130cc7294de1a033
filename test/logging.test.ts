import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chooseLogFormat, consoleStyle } from '../src/logging.js';
import { CLI_ENTRY } from './helpers/cli.js';
import { freePort, waitFor } from './ops/support.js';

/**
 * What `joe-links serve` prints (docs/operations.md#logs): readable lines and a framed
 * sign-in link at a terminal, JSON lines everywhere else, unless JOE_LOG_FORMAT says.
 */

const ESC = '\u001b[';
const URL_LINE = /^\s+(?:\u001b\[[0-9;]*m)*(http:\/\/127\.0\.0\.1:\d+\/auth\/local\?token=[A-Za-z0-9_-]{43})(?:\u001b\[[0-9;]*m)*\r?$/m;

describe('choosing the log format', () => {
  test('auto follows the terminal; pretty and json are taken as said', () => {
    assert.equal(chooseLogFormat('auto', true), 'pretty');
    assert.equal(chooseLogFormat('auto', false), 'json');
    assert.equal(chooseLogFormat('json', true), 'json');
    assert.equal(chooseLogFormat('pretty', false), 'pretty');
  });

  test('colours only for readable lines on a terminal that has them', () => {
    const stream = (isTTY: boolean, colors: boolean) => ({ isTTY, hasColors: () => colors }) as unknown as NodeJS.WriteStream;
    assert.deepEqual(consoleStyle('auto', stream(true, true)), { format: 'pretty', colors: true });
    assert.deepEqual(consoleStyle('auto', stream(true, false)), { format: 'pretty', colors: false }, 'NO_COLOR or TERM=dumb');
    assert.deepEqual(consoleStyle('pretty', stream(false, false)), { format: 'pretty', colors: false });
    assert.deepEqual(consoleStyle('json', stream(true, true)), { format: 'json', colors: false });
  });
});

interface Run {
  output: string;
  code: number | null;
}

describe('joe-links serve output', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-logs-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * Starts `serve` on a fresh database (so it prints the sign-in link), waits for the link,
   * then stops it with SIGTERM. With `terminal`, stdout is a pseudo-terminal made by
   * util-linux `script`. Either way a shell records its pid, then becomes the server.
   */
  async function serve(name: string, env: Record<string, string>, terminal: boolean): Promise<Run> {
    const port = await freePort();
    const pidFile = join(dir, `${name}.pid`);
    const serverEnv = {
      PATH: process.env.PATH ?? '',
      JOE_DB_DSN: join(dir, `${name}.db`),
      JOE_BACKUP_DIR: join(dir, `${name}-backups`),
      JOE_HTTP_ADDR: `127.0.0.1:${port}`,
      JOE_BASE_URL: `http://127.0.0.1:${port}`,
      JOE_HEALTH_CHECKS_ENABLED: 'false',
      ...env,
    };
    const command = `echo $$ > '${pidFile}'; exec '${process.execPath}' '${CLI_ENTRY}' serve`;
    const child = terminal
      ? spawn('script', ['-qfec', command, '/dev/null'], { cwd: dir, env: { ...serverEnv, SHELL: '/bin/sh' } })
      : spawn('sh', ['-c', command], { cwd: dir, env: serverEnv });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    // 'close', not 'exit': the last lines may still be in the pipe when the process ends.
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await waitFor(`the sign-in link from ${name}`, () => URL_LINE.test(output), 60_000);
    } catch (e) {
      child.kill('SIGKILL');
      throw new Error(`${(e as Error).message}:\n${output}`, { cause: e });
    }
    process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
    const code = await exited;
    return { output, code };
  }

  test('on a pipe: JSON lines, and the plain sign-in block', async () => {
    const { output, code } = await serve('pipe', {}, false);
    assert.equal(code, 0, output);
    const logLines = output.split('\n').filter((l) => l.startsWith('{'));
    assert.ok(
      logLines.some((l) => /"msg":"listening on 127\.0\.0\.1:\d+"/.test(l)),
      output,
    );
    for (const l of logLines) assert.doesNotThrow(() => JSON.parse(l), l);
    assert.match(output, /^={72}$/m);
    assert.ok(!output.includes(ESC), 'no colour codes in a pipe');
    assert.match(output, /"msg":"SIGTERM received, shutting down"/);
    const order = ['"msg":"listening on', 'joe-links is in local mode', '"msg":"SIGTERM received'].map((s) => output.indexOf(s));
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      'printed in the order it happened',
    );
  });

  test('on a terminal: readable coloured lines, the link framed, and a clean stop', async (t) => {
    if (spawnSync('script', ['--version']).status !== 0) return t.skip('util-linux script is not installed');
    const { output, code } = await serve('tty', { TERM: 'xterm-256color' }, true);
    assert.equal(code, 0, output);
    const lines = output.split(/\r?\n/);
    assert.ok(!lines.some((l) => l.startsWith('{')), `no JSON lines:\n${output}`);
    const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
    assert.match(plain, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening on 127\.0\.0\.1:\d+\r?$/m);
    assert.match(plain, /^ {2}━━ Sign in to joe-links ━+\r?$/m);
    assert.match(plain, /^ {2}Created the bootstrap admin admin@localhost \(local mode\)\.\r?$/m);
    assert.ok(output.includes(`${ESC}1m${ESC}32mhttp://127.0.0.1:`), 'the link is bold green');
    assert.match(plain, /INFO: SIGTERM received, shutting down/);
  });

  test('JOE_LOG_FORMAT overrides the terminal either way', async (t) => {
    const pretty = await serve('pretty-pipe', { JOE_LOG_FORMAT: 'pretty' }, false);
    assert.match(pretty.output, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening on /m);
    assert.match(pretty.output, /^ {2}━━ Sign in to joe-links/m);
    assert.ok(!pretty.output.includes(ESC), 'readable, but no colours in a pipe');
    if (spawnSync('script', ['--version']).status !== 0) return t.skip('util-linux script is not installed');
    const json = await serve('json-tty', { JOE_LOG_FORMAT: 'json', TERM: 'xterm-256color' }, true);
    assert.match(json.output, /^\{"level":30,.*"msg":"listening on /m);
    assert.match(json.output, /^={72}\r?$/m);
  });
});
