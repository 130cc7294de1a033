import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { CLI_ARGS } from '../helpers/cli.js';
import { createLink } from '../helpers/links.js';
import { eventually, get, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The HTTP request metrics in /metrics and the access log (docs/operations.md#metrics,
 * docs/operations.md#logs): what appears, never how fast anything is.
 */

function logCollector(): { lines: () => Array<Record<string, unknown>>; stream: Writable } {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      raw.push(chunk.toString());
      cb();
    },
  });
  const lines = () =>
    raw
      .join('')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { lines, stream };
}

/** `name{labels} value` of a Prometheus text body, 0 when absent. */
function sample(body: string, name: string, labels: string): number {
  const line = body.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

async function exercise(s: TestServer): Promise<void> {
  const owner = await s.store.users.create({ email: 'owner@x.io' });
  await createLink(s.store, { slug: 'docs', url: 'https://docs.test/' }, owner.id);
  assert.equal((await get(`${s.url}/docs`)).status, 302, 'the go-link front');
  assert.equal((await get(`${s.url}/docs`, { 'hx-request': 'true' })).status, 204, 'the front, for HTMX');
  assert.equal((await get(`${s.url}/no-such-link`)).status, 404, 'the resolver’s page');
  assert.equal((await get(`${s.url}/api/v1/links`)).status, 401);
  assert.equal((await get(`${s.url}/api/v1/config`)).status, 200);
  assert.equal((await get(`${s.url}/auth/login`)).status, 200);
  assert.equal((await get(`${s.url}/static/img/favicon.svg`)).status, 200);
  assert.equal((await get(`${s.url}/mcp`, {}, 'POST', '{}')).status, 401);
  assert.equal((await get(`${s.url}/healthz`)).status, 200);
}

describe('request metrics and the access log', () => {
  describe('off by default', () => {
    let s: TestServer;
    const log = logCollector();
    before(async () => {
      s = await startTestServer({ start: { logger: { level: 'info', stream: log.stream } } });
      await exercise(s);
    });
    after(async () => s.stop());

    test('/metrics counts requests by route kind and status class, with a latency histogram per kind', async () => {
      const body = await (await get(`${s.url}/metrics`)).text();
      const count = (kind: string, cls: string) => sample(body, 'joelinks_http_requests_total', `kind="${kind}",status_class="${cls}"`);
      assert.equal(count('redirect', '3xx'), 1, 'the 302 from the front');
      assert.equal(count('redirect', '2xx'), 1, 'the HTMX 204 from the front');
      assert.equal(count('redirect', '4xx'), 1, 'the miss the resolver rendered');
      assert.equal(count('api', '4xx'), 1);
      assert.equal(count('api', '2xx'), 1);
      assert.equal(count('web', '2xx'), 1);
      assert.equal(count('static', '2xx'), 1);
      assert.equal(count('mcp', '4xx'), 1);
      assert.equal(count('other', '2xx'), 1, '/healthz');
      assert.match(body, /# TYPE joelinks_http_request_duration_seconds histogram/);
      for (const [kind, n] of [
        ['redirect', 3],
        ['api', 2],
        ['web', 1],
        ['static', 1],
        ['mcp', 1],
      ] as const) {
        assert.equal(sample(body, 'joelinks_http_request_duration_seconds_count', `kind="${kind}"`), n, kind);
        assert.equal(sample(body, 'joelinks_http_request_duration_seconds_bucket', `kind="${kind}",le="+Inf"`), n, kind);
      }
      // Counted once more on the next scrape, never twice.
      const again = await (await get(`${s.url}/metrics`)).text();
      assert.equal(sample(again, 'joelinks_http_requests_total', 'kind="redirect",status_class="3xx"'), 1);
      assert.equal(sample(again, 'joelinks_http_requests_total', 'kind="other",status_class="2xx"'), 2, 'the first scrape itself');
    });

    test('/metrics shows the event loop’s delay and the click writer’s batches, so an operator can see a stall', async () => {
      const body = await (await get(`${s.url}/metrics`)).text();
      for (const stat of ['p50', 'p99', 'max']) {
        const line = body.split('\n').find((l) => l.startsWith(`nodejs_eventloop_lag_${stat}_seconds `));
        assert.ok(line, `event-loop delay ${stat}`);
        assert.ok(Number(line.split(' ')[1]) >= 0);
      }
      // The two clicks of the redirects above (the 302 and the HTMX 204), in one batch or two.
      let scraped = '';
      await eventually(async () => {
        scraped = await (await get(`${s.url}/metrics`)).text();
        return /^joelinks_click_batch_size_sum 2$/m.test(scraped);
      });
      const batches = Number(/^joelinks_click_batch_size_count (\d+)$/m.exec(scraped)?.[1]);
      assert.ok(batches === 1 || batches === 2, `${batches} batches`);
      assert.match(scraped, new RegExp(`^joelinks_click_batch_duration_seconds_count ${batches}$`, 'm'));
      assert.match(scraped, new RegExp(`^joelinks_click_batch_duration_seconds_bucket\\{le="5"\\} ${batches}$`, 'm'));
    });

    test('/metrics?name[]= answers only the families named, with the values of a whole scrape', async () => {
      const families = (text: string) => [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]).sort();
      const own = await get(
        `${s.url}/metrics?name[]=joelinks_clicks_recorded_total&name[]=joelinks_clicks_dropped_total&name[]=no_such_metric`,
      );
      assert.equal(own.status, 200);
      assert.match(own.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const ownText = await own.text();
      assert.deepEqual(families(ownText), ['joelinks_clicks_dropped_total', 'joelinks_clicks_recorded_total']);
      assert.match(ownText, /^joelinks_clicks_recorded_total 2$/m, 'the two clicks stored above');
      assert.match(ownText, /^joelinks_clicks_dropped_total 0$/m);

      // Node's event-loop families are filled when their family is collected: asked for alone,
      // they still carry this scrape's values.
      const loop = await (await get(`${s.url}/metrics?name[]=nodejs_eventloop_lag_max_seconds&name[]=joelinks_links_total`)).text();
      assert.deepEqual(families(loop), ['joelinks_links_total', 'nodejs_eventloop_lag_max_seconds']);
      assert.match(loop, /^nodejs_eventloop_lag_max_seconds \d/m);

      const none = await (await get(`${s.url}/metrics?name[]=no_such_metric`)).text();
      assert.equal(none, '');
    });

    test('no access log line is written', () => {
      assert.deepEqual(
        log.lines().filter((l) => l.access === true),
        [],
      );
    });
  });

  describe('JOE_ACCESS_LOG=true', () => {
    let s: TestServer;
    const log = logCollector();
    before(async () => {
      s = await startTestServer({ env: { JOE_ACCESS_LOG: 'true' }, start: { logger: { level: 'info', stream: log.stream } } });
      await exercise(s);
    });
    after(async () => s.stop());

    test('one line per request: method, route pattern (never the path), status, milliseconds', () => {
      const lines = log.lines().filter((l) => l.access === true);
      const seen = lines.map((l) => `${l.method} ${l.route} ${l.status}`);
      assert.deepEqual(seen, [
        'GET /* 302',
        'GET /* 204',
        'GET /* 404',
        'GET /api/v1/links 401',
        'GET /api/v1/config 200',
        'GET /auth/login 200',
        'GET /static/* 200',
        'POST /mcp 401',
        'GET /healthz 200',
      ]);
      for (const l of lines) {
        assert.equal(typeof l.ms, 'number');
        assert.ok((l.ms as number) >= 0);
        assert.equal(l.msg, `${l.method} ${l.route} ${l.status} ${l.ms}ms`);
        assert.doesNotMatch(JSON.stringify(l), /docs|no-such-link/, 'no path, so no link name');
      }
    });
  });

  test('readable lines too: `serve` with JOE_LOG_FORMAT=pretty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'joe-links-access-'));
    const child = spawn(process.execPath, [...CLI_ARGS, 'serve'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        JOE_HTTP_ADDR: '127.0.0.1:0',
        JOE_INSECURE_COOKIES: 'true',
        JOE_HEALTH_CHECKS_ENABLED: 'false',
        JOE_LOG_FORMAT: 'pretty',
        JOE_ACCESS_LOG: 'true',
        NO_COLOR: '1',
      },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    try {
      const deadline = Date.now() + 90_000;
      let addr: string | undefined;
      while (!(addr = /listening on (\S+)/.exec(out)?.[1])) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal((await get(`http://${addr}/healthz`)).status, 200);
      assert.equal((await get(`http://${addr}/missing-link`)).status, 404);
      while (!/GET \/\* 404/.test(out)) {
        if (Date.now() > deadline) throw new Error(`no access line: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.match(out, /^\S+ INFO: GET \/healthz 200 [\d.]+ms/m);
      assert.match(out, /^\S+ INFO: GET \/\* 404 [\d.]+ms/m);
      assert.doesNotMatch(out, /missing-link/);
    } finally {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
