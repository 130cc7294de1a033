import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI_ARGS } from '../helpers/cli.js';
import { freePort, waitFor } from './support.js';

/**
 * SIGTERM while `serve` is still starting (docs/operations.md#containers): as a container's
 * PID 1 a process without a handler would never hear it, so the handler is there before the
 * database is opened, and the server stops as soon as it has started, exiting 0.
 */
test('a SIGTERM during start-up stops the server once it has started, cleanly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-startsignal-'));
  let running: ChildProcess | null = null;
  try {
    const child = spawn(process.execPath, [...CLI_ARGS, 'serve'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        JOE_DB_DSN: join(dir, 'joe-links.db'),
        JOE_BACKUP_DIR: join(dir, 'backups'),
        JOE_HTTP_ADDR: `127.0.0.1:${await freePort()}`,
        JOE_HEALTH_CHECKS_ENABLED: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running = child;
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
    // Logged by the server while it starts: migrations come before the web stack is built.
    await waitFor('the migrations line', () => /applied \d+ migrations?, up to /.test(output), 60_000);
    child.kill('SIGTERM');
    const { code, signal } = await exited;
    assert.equal(signal, null, `not killed by the signal:\n${output}`);
    assert.equal(code, 0, output);
    assert.match(output, /"msg":"listening on /);
    assert.match(output, /"msg":"SIGTERM( \(during startup\))? received, shutting down"/);
  } finally {
    // A failed wait must not leave a server running until the file's timeout.
    if (running && running.exitCode === null && running.signalCode === null) running.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
