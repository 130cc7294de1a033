import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { isPublicAddress } from '../../src/domain/addressClass.js';
import { GuardedClient, OutboundError, REFUSED_MESSAGE, type FetchOptions, type Lookup } from '../../src/net/guardedClient.js';
import { destination, pairOnOnePort, rawServer, sleep } from './destinations.js';

/**
 * The SSRF guard of docs/lifecycle.md#ssrf-guard and the request bounds of docs/lifecycle.md#health-checks, against
 * real servers on loopback playing hostile destinations.
 */

const UA = 'joe-links-health/test';
const HEAD: FetchOptions = { method: 'HEAD', timeoutMs: 3_000 };
const GET: FetchOptions = { method: 'GET', timeoutMs: 3_000 };

/** 127.0.0.2 stands in for a public host; everything else is judged by the real classifier. */
const publicStandIn = (a: string) => a === '127.0.0.2' || isPublicAddress(a);

const clients: GuardedClient[] = [];
function client(opts: Partial<ConstructorParameters<typeof GuardedClient>[0]> = {}): GuardedClient {
  const c = new GuardedClient({ allowPrivate: false, userAgent: UA, ...opts });
  clients.push(c);
  return c;
}

async function rejection(p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof OutboundError, `expected an OutboundError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the fetch to fail');
}

after(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

describe('guarded client: the address guard at dial time', () => {
  test('by default 127.0.0.1 is refused and never receives a connection', async () => {
    const d = await destination((_q, r) => r.end('ok'));
    try {
      const e = await rejection(client().fetch(`${d.origin}/`, HEAD));
      assert.equal(e.kind, 'refused');
      assert.equal(e.message, REFUSED_MESSAGE);
      assert.equal(d.hits.length, 0);
    } finally {
      await d.close();
    }
  });

  test('allowPrivate reaches it', async () => {
    const d = await destination((_q, r) => r.end('ok'));
    try {
      const res = await client({ allowPrivate: true }).fetch(`${d.origin}/x`, HEAD);
      assert.equal(res.status, 200);
      assert.equal(d.hits.length, 1);
      assert.equal(d.hits[0]!.headers['user-agent'], UA);
    } finally {
      await d.close();
    }
  });

  test('every spelling of a loopback literal is refused without a connection', async () => {
    const v4 = await rawServer((s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'), { host: '0.0.0.0' });
    const v6 = await rawServer((s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'), { host: '::1', port: v4.port }).catch(
      () => null,
    );
    try {
      const p = v4.port;
      const urls = [
        `http://127.0.0.1:${p}/`,
        `http://127.1:${p}/`,
        `http://2130706433:${p}/`,
        `http://0x7f.0.0.1:${p}/`,
        `http://0177.0.0.1:${p}/`,
        `http://0.0.0.0:${p}/`,
        `http://0:${p}/`,
        `http://[::ffff:127.0.0.1]:${p}/`,
        `http://[::ffff:7f00:1]:${p}/`,
        `http://[::1]:${p}/`,
        `http://[::]:${p}/`,
        `http://localhost:${p}/`,
      ];
      const c = client();
      for (const url of urls) {
        const e = await rejection(c.fetch(url, HEAD));
        assert.equal(e.kind, 'refused', url);
      }
      assert.equal(v4.connections(), 0);
      assert.equal(v6?.connections() ?? 0, 0);
    } finally {
      await v4.close();
      await v6?.close();
    }
  });

  test('a host resolving to several addresses is dialled only at the allowed ones', async () => {
    const pair = await pairOnOnePort((_q, r) => r.end('public'));
    try {
      const lookup: Lookup = async () => [
        { address: '127.0.0.1', family: 4 },
        { address: '127.0.0.2', family: 4 },
      ];
      const res = await client({ lookup, addressAllowed: publicStandIn }).fetch(`http://mixed.test:${pair.pub.port}/`, HEAD);
      assert.equal(res.status, 200);
      assert.equal(pair.pub.hits.length, 1);
      assert.equal(pair.internal.hits.length, 0);
      assert.equal(pair.pub.hits[0]!.headers.host, `mixed.test:${pair.pub.port}`, 'the Host header keeps the name');
    } finally {
      await pair.close();
    }
  });

  test('DNS rebinding: the check runs on the address each connection dials, not on an earlier answer', async () => {
    const pair = await pairOnOnePort((_q, r) => r.end('public'));
    try {
      const answers: string[] = [];
      // Public on the first lookup, the internal address on every later one.
      const lookup: Lookup = async () => {
        const address = answers.length === 0 ? '127.0.0.2' : '127.0.0.1';
        answers.push(address);
        return [{ address, family: 4 }];
      };
      const c = client({ lookup, addressAllowed: publicStandIn });
      const url = `http://rebind.test:${pair.pub.port}/`;
      const first = await c.fetch(url, HEAD);
      assert.equal(first.status, 200);
      assert.deepEqual(answers, ['127.0.0.2'], 'one lookup per connection: nothing re-resolves between check and connect');
      const e = await rejection(c.fetch(url, HEAD));
      assert.equal(e.kind, 'refused', 'the second connection is refused');
      assert.equal(pair.pub.hits.length, 1);
      assert.equal(pair.internal.hits.length, 0, 'the internal service never saw a request');
    } finally {
      await pair.close();
    }
  });

  test('DNS rebinding with the real classifier: a public first answer, then 127.0.0.1', async () => {
    const internal = await destination((_q, r) => r.end('internal secrets'));
    try {
      const answers: string[] = [];
      const lookup: Lookup = async () => {
        const address = answers.length === 0 ? '100.128.0.1' : '127.0.0.1';
        answers.push(address);
        return [{ address, family: 4 }];
      };
      const c = client({ lookup });
      const url = `http://rebind.test:${internal.port}/`;
      // The public address is dialled (and is unreachable from here): a transport failure, not a refusal.
      const first = await rejection(c.fetch(url, { ...HEAD, timeoutMs: 500 }));
      assert.notEqual(first.kind, 'refused');
      assert.deepEqual(answers, ['100.128.0.1']);
      const second = await rejection(c.fetch(url, HEAD));
      assert.equal(second.kind, 'refused');
      assert.equal(internal.hits.length, 0);
    } finally {
      await internal.close();
    }
  });

  test('a redirect from an allowed host to 127.0.0.1 is refused at that hop', async () => {
    const internal = await destination((_q, r) => r.end('internal secrets'));
    const pub = await destination((_q, r) => r.writeHead(302, { location: `http://127.0.0.1:${internal.port}/admin` }).end(), {
      host: '127.0.0.2',
    });
    try {
      const c = client({ addressAllowed: publicStandIn });
      const e = await rejection(c.fetch(`${pub.origin}/`, HEAD));
      assert.equal(e.kind, 'refused');
      assert.equal(pub.hits.length, 1);
      assert.equal(internal.hits.length, 0);
      // The GET fallback path is the same client: it is refused the same way.
      const e2 = await rejection(c.fetch(`${pub.origin}/`, GET));
      assert.equal(e2.kind, 'refused');
      assert.equal(internal.hits.length, 0);
    } finally {
      await Promise.all([pub.close(), internal.close()]);
    }
  });

  test('a DNS failure is a network failure, not a refusal', async () => {
    const lookup: Lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    };
    const e = await rejection(client({ lookup }).fetch('http://nowhere.test/', HEAD));
    assert.equal(e.kind, 'network');
    assert.match(e.message, /DNS lookup failed/);
  });

  test('proxy variables are ignored: probes never leave through HTTP(S)_PROXY', async () => {
    const proxy = await destination((_q, r) => r.end('proxied'));
    const d = await destination((_q, r) => r.end('direct'));
    const saved = { http: process.env.HTTP_PROXY, https: process.env.HTTPS_PROXY };
    process.env.HTTP_PROXY = proxy.origin;
    process.env.HTTPS_PROXY = proxy.origin;
    try {
      const res = await client({ allowPrivate: true }).fetch(`${d.origin}/`, HEAD);
      assert.equal(res.status, 200);
      assert.equal(d.hits.length, 1);
      assert.equal(proxy.hits.length, 0);
    } finally {
      if (saved.http === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved.http;
      if (saved.https === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = saved.https;
      await Promise.all([proxy.close(), d.close()]);
    }
  });
});

describe('guarded client: bounds against hostile destinations', () => {
  const open = () => client({ allowPrivate: true });

  test('a server that never answers times out within the bound', async () => {
    const d = await rawServer(() => {});
    try {
      const started = performance.now();
      const e = await rejection(open().fetch(`${d.origin}/`, { ...HEAD, timeoutMs: 400 }));
      const took = performance.now() - started;
      assert.equal(e.kind, 'timeout');
      assert.match(e.message, /timed out/);
      assert.ok(took >= 350 && took < 2_000, `took ${took} ms`);
    } finally {
      await d.close();
    }
  });

  test('the timeout bounds the whole request: a body trickling forever is cut off', async () => {
    const d = await destination((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const t = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(t));
    });
    try {
      const started = performance.now();
      const e = await rejection(open().fetch(`${d.origin}/`, { ...GET, timeoutMs: 500 }));
      assert.equal(e.kind, 'timeout');
      assert.ok(performance.now() - started < 2_000);
    } finally {
      await d.close();
    }
  });

  test('the timeout covers all redirect hops together, not each one', async () => {
    const d = await destination((req, res) => {
      const n = Number(req.url!.slice(1)) || 0;
      setTimeout(() => res.writeHead(302, { location: `/${n + 1}` }).end(), 150);
    });
    try {
      const e = await rejection(open().fetch(`${d.origin}/0`, { ...HEAD, timeoutMs: 500 }));
      assert.equal(e.kind, 'timeout');
      assert.ok(d.hits.length <= 4, `${d.hits.length} hops inside 500 ms`);
    } finally {
      await d.close();
    }
  });

  test('a connection reset is a network failure', async () => {
    const d = await destination((req) => req.socket.resetAndDestroy());
    try {
      const e = await rejection(open().fetch(`${d.origin}/`, HEAD));
      assert.equal(e.kind, 'network');
      assert.match(e.message, /reset/);
    } finally {
      await d.close();
    }
  });

  test('a peer that closes without answering is a failure', async () => {
    const d = await rawServer((s) => s.end());
    try {
      const e = await rejection(open().fetch(`${d.origin}/`, HEAD));
      assert.equal(e.kind, 'network');
    } finally {
      await d.close();
    }
  });

  test('garbage instead of HTTP is a protocol failure', async () => {
    const d = await rawServer((s) => s.end('SSH-2.0-OpenSSH_9.6\r\nthis is not http\r\n\r\n'));
    try {
      const e = await rejection(open().fetch(`${d.origin}/`, HEAD));
      assert.equal(e.kind, 'protocol');
      assert.match(e.message, /invalid HTTP response/);
    } finally {
      await d.close();
    }
  });

  test('oversized response headers are refused, not buffered', async () => {
    const d = await rawServer((s) => {
      s.write('HTTP/1.1 200 OK\r\n');
      for (let i = 0; i < 2_000; i++) s.write(`x-junk-${i}: ${'a'.repeat(100)}\r\n`);
      s.end('\r\n');
    });
    try {
      const e = await rejection(open().fetch(`${d.origin}/`, HEAD));
      assert.equal(e.kind, 'protocol');
    } finally {
      await d.close();
    }
  });

  test('a 10 GB body: reading stops at 64 KiB, the connection is dropped, memory stays flat', async () => {
    let written = 0;
    let closedAt = -1;
    const d = await destination((_q, res) => {
      res.writeHead(200, { 'content-length': String(10 * 1024 ** 3), 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = () => {
        while (!res.destroyed && written < 10 * 1024 ** 3) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => (closedAt = written));
      pump();
    });
    try {
      const before = process.memoryUsage().rss;
      const started = performance.now();
      const res = await open().fetch(`${d.origin}/`, { ...GET, timeoutMs: 10_000 });
      assert.equal(res.status, 200);
      assert.equal(res.bodyBytes, 64 * 1024);
      assert.equal(res.body, null, 'the checker keeps nothing');
      assert.ok(performance.now() - started < 5_000);
      await sleep(200);
      assert.ok(closedAt >= 0, 'the server saw the connection close');
      assert.ok(closedAt < 64 * 1024 ** 2, `server managed to write ${closedAt} bytes before the drop`);
      assert.ok(process.memoryUsage().rss - before < 64 * 1024 ** 2, 'no memory growth to speak of');
    } finally {
      await d.close();
    }
  });

  test('keepBody returns exactly the capped prefix (destination context fetching)', async () => {
    const d = await destination((_q, res) => res.end('<title>Hi</title>' + 'z'.repeat(100_000)));
    try {
      const res = await open().fetch(`${d.origin}/`, { ...GET, keepBody: true, maxBodyBytes: 1024 });
      assert.equal(res.body!.length, 1024);
      assert.ok(res.body!.toString().startsWith('<title>Hi</title>'));
    } finally {
      await d.close();
    }
  });

  test('infinite redirects stop at the limit: 6 requests, a failure naming the redirect limit', async () => {
    const d = await destination((_q, res) => res.writeHead(302, { location: '/loop' }).end());
    try {
      const e = await rejection(open().fetch(`${d.origin}/loop`, HEAD));
      assert.equal(e.kind, 'redirect-limit');
      assert.match(e.message, /redirect limit/);
      assert.equal(d.hits.length, 6, 'the first request plus 5 followed redirects');
    } finally {
      await d.close();
    }
  });

  test('a 5-hop chain ending in 200 succeeds; relative and absolute locations both work', async () => {
    const d = await destination((req, res, self) => {
      const n = Number(req.url!.slice(1));
      if (n >= 5) return void res.end('done');
      const location = n % 2 === 0 ? `/${n + 1}` : `${self.origin}/${n + 1}`;
      res.writeHead([301, 302, 303, 307, 308][n]!, { location }).end();
    });
    try {
      const res = await open().fetch(`${d.origin}/0`, HEAD);
      assert.equal(res.status, 200);
      assert.equal(res.redirects, 5);
      assert.equal(res.url, `${d.origin}/5`);
      assert.ok(
        d.hits.every((h) => h.method === 'HEAD'),
        'HEAD stays HEAD across hops',
      );
    } finally {
      await d.close();
    }
  });

  test('a redirect to file:, ftp: or javascript: is not followed; that 3xx is final', async () => {
    for (const location of ['file:///etc/passwd', 'ftp://ftp.example.com/pub', 'javascript:alert(1)', 'gopher://x/']) {
      const d = await destination((_q, res) => res.writeHead(302, { location }).end());
      try {
        const res = await open().fetch(`${d.origin}/`, HEAD);
        assert.equal(res.status, 302, location);
        assert.equal(res.redirects, 0);
        assert.equal(d.hits.length, 1);
      } finally {
        await d.close();
      }
    }
  });

  test('no cookies or credentials are ever sent', async () => {
    const d = await destination((req, res) => {
      if (req.url === '/start') return void res.writeHead(302, { location: '/next', 'set-cookie': 'sid=secret; Path=/' }).end();
      res.end('ok');
    });
    try {
      const host = d.origin.replace('http://', '');
      const res = await open().fetch(`http://user:hunter2@${host}/start`, HEAD);
      assert.equal(res.status, 200);
      assert.equal(d.hits.length, 2);
      for (const h of d.hits) {
        assert.equal(h.headers.cookie, undefined);
        assert.equal(h.headers.authorization, undefined);
        assert.equal(h.headers['proxy-authorization'], undefined);
      }
    } finally {
      await d.close();
    }
  });

  test('non-http(s) destinations are refused before any network activity', async () => {
    for (const url of ['ftp://example.com/', 'javascript:alert(1)', 'file:///etc/passwd', 'http:opaque', 'not a url']) {
      const e = await rejection(open().fetch(url, HEAD));
      assert.equal(e.kind, 'scheme', url);
    }
  });

  test('a caller abort rejects with the caller reason, not a timeout', async () => {
    const d = await rawServer(() => {});
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort(new Error('shutting down')), 100);
      await assert.rejects(open().fetch(`${d.origin}/`, { ...HEAD, signal: ac.signal }), /shutting down/);
    } finally {
      await d.close();
    }
  });
});
