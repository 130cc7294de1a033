import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLI_ENTRY } from '../helpers/cli.js';
import type { TestServer } from '../helpers/server.js';
import { startApi } from './support.js';

const SCRIPT = resolve('docs/api-examples.sh');

function runScript(env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('bash', [SCRIPT], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolveRun({ status, stdout, stderr });
    });
  });
}

const available = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

describe('the API examples', () => {
  test('docs/api.md shows docs/api-examples.sh verbatim', () => {
    const doc = readFileSync(resolve('docs/api.md'), 'utf8');
    const script = readFileSync(SCRIPT, 'utf8');
    assert.ok(doc.includes(`\`\`\`sh\n${script}\`\`\``), 'docs/api.md must contain docs/api-examples.sh as a ```sh block, unchanged');
  });

  describe('run against a live server', { skip: available('bash') && available('curl') ? false : 'bash or curl is not installed' }, () => {
    let s: TestServer;
    let bin: string;
    before(async () => {
      s = await startApi();
      await s.store.users.create({ email: 'dana@example.com', displayName: 'Dana' });
      await s.store.users.create({ email: 'sam@example.com', displayName: 'Sam' });
      // `joe-links` on the PATH is the real CLI, pointed at the server's database.
      bin = mkdtempSync(join(tmpdir(), 'joe-links-bin-'));
      writeFileSync(join(bin, 'joe-links'), `#!/bin/sh\nexec "${process.execPath}" "${CLI_ENTRY}" "$@"\n`);
      chmodSync(join(bin, 'joe-links'), 0o755);
    });
    after(async () => {
      await s.stop();
      rmSync(bin, { recursive: true, force: true });
    });

    test('every step succeeds and does what it says', async () => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        JOE: s.url,
        JOE_DB_DRIVER: s.config.db.driver,
        JOE_DB_DSN: s.config.db.dsn,
      };
      delete env.TOKEN;
      // Asynchronously: the server under test runs in this process and must keep answering.
      const r = await runScript(env);
      assert.equal(r.status, 0, `script failed:\n${r.stdout}\n${r.stderr}`);
      const out = r.stdout;
      const id = /^created ([0-9a-f-]{36})$/m.exec(out)?.[1];
      assert.ok(id, out);
      assert.match(out, /"email":"dana@example.com"/);
      assert.match(out, /"url":"https:\/\/example.com\/handbook\/v2"/);
      assert.match(out, /"lifecycle_state":"archived"/);
      assert.match(out, /"visibility":"secure"/);
      assert.match(out, /"email":"sam@example.com"/);
      assert.match(out, /"slug":"docs","name":"Docs"/);
      assert.match(out, new RegExp(`^deleted ${id}$`, 'm'));
      assert.equal(await s.store.links.get(id!), null, 'the last step deleted the link');
      const dana = await s.store.users.findByEmail('dana@example.com');
      assert.equal((await s.store.tokens.listForUser(dana!.id)).length, 1, 'the token came from the CLI');
    });
  });
});
