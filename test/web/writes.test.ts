import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { get, sessionCookie, type RawResponse } from '../helpers/server.js';
import { startProbedServer, type ProbedServer } from '../auth/support/probes.js';
import { createLink } from '../helpers/links.js';

const cookieLine = (r: RawResponse, name: string) => (r.headers.raw['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('theme endpoint, method override and cross-site protection', () => {
  let p: ProbedServer;
  let cookie: string;
  before(async () => {
    p = await startProbedServer({ JOE_BASE_URL: 'https://go.example.com' });
    cookie = await sessionCookie(p.s.store, await p.s.store.users.create({ email: 'writer@x.io' }));
  });
  after(async () => p.s.stop());

  test('POST /dashboard/theme sets the theme cookie for anyone', async () => {
    for (const theme of ['joe-dark', 'joe-light']) {
      const r = await get(`${p.s.url}/dashboard/theme`, FORM, 'POST', `theme=${theme}`);
      assert.equal(r.status, 200, 'public: no login redirect');
      assert.equal(cookieLine(r, 'theme'), `theme=${theme}; Max-Age=31536000; Path=/; SameSite=Lax`);
      assert.doesNotMatch(cookieLine(r, 'theme')!, /HttpOnly/);
      assert.deepEqual(JSON.parse(r.headers.get('hx-trigger')!), { themeChanged: { theme } });
      assert.equal(r.headers.get('location'), null);
    }
    const page = await get(`${p.s.url}/`, { cookie: 'theme=joe-dark' });
    assert.match(await page.text(), /<html lang="en" data-theme="joe-dark">/);
  });

  test('theme=system deletes the cookie; a plain form post with `back` returns to the page it came from', async () => {
    const r = await get(`${p.s.url}/dashboard/theme`, { ...FORM, cookie: 'theme=joe-dark' }, 'POST', 'theme=system');
    assert.equal(r.status, 200);
    assert.match(cookieLine(r, 'theme')!, /^theme=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT/);
    assert.deepEqual(JSON.parse(r.headers.get('hx-trigger')!), { themeChanged: { theme: 'system' } });
    const page = await get(`${p.s.url}/`);
    assert.match(await page.text(), /<html lang="en">/, 'no cookie: no data-theme, the system preference decides');

    const page2 = `${p.s.url}/links?q=x`;
    const back = await get(`${p.s.url}/dashboard/theme`, { ...FORM, referer: page2 }, 'POST', 'theme=joe-dark&back=1');
    assert.equal(back.status, 303);
    assert.equal(back.headers.get('location'), '/links?q=x', 'back to the page the switch was on');
    assert.match(cookieLine(back, 'theme')!, /^theme=joe-dark;/);
    for (const referer of ['https://evil.example/links', '', 'not a url']) {
      const r = await get(`${p.s.url}/dashboard/theme`, { ...FORM, referer }, 'POST', 'theme=joe-dark&back=1');
      assert.equal(r.headers.get('location'), '/dashboard', `only a page of this site: ${JSON.stringify(referer)}`);
    }
    const htmx = await get(
      `${p.s.url}/dashboard/theme`,
      { ...FORM, 'hx-request': 'true', referer: page2 },
      'POST',
      'theme=joe-dark&back=1',
    );
    assert.equal(htmx.status, 200, 'the page script saves in the background');
  });

  test('any other theme value is refused with 400 and no cookie', async () => {
    const bodies: Array<[string, Record<string, string>]> = [
      ['theme=blue', FORM],
      ['theme=', FORM],
      ['', FORM],
      ['theme=joe-dark&theme=joe-light', FORM],
      ['theme=JOE-DARK', FORM],
      ['theme=joe-dark%00', FORM],
      ['{"theme":"joe-dark"', { 'content-type': 'application/json' }],
      ['{"theme":["joe-dark"]}', { 'content-type': 'application/json' }],
    ];
    for (const [body, headers] of bodies) {
      const r = await get(`${p.s.url}/dashboard/theme`, headers, 'POST', body);
      assert.equal(r.status, 400, body);
      assert.equal(cookieLine(r, 'theme'), undefined, body);
      if (headers === FORM) assert.equal(await r.text(), 'invalid theme');
    }
  });

  test('a cross-site theme post is refused and sets nothing', async () => {
    const r = await get(`${p.s.url}/dashboard/theme`, { ...FORM, origin: 'https://evil.example' }, 'POST', 'theme=joe-dark');
    assert.equal(r.status, 403);
    assert.equal(cookieLine(r, 'theme'), undefined);
    assert.match(await r.text(), /Request refused/);
  });

  test('same-origin writes pass: Origin equal to Host, to JOE_BASE_URL, or absent', async () => {
    const host = new URL(p.s.url).host;
    const cases: Array<Record<string, string>> = [
      { origin: `http://${host}` },
      { origin: 'https://go.example.com' },
      {},
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
    ];
    for (const headers of cases) {
      const r = await get(`${p.s.url}/dashboard/theme`, { ...FORM, ...headers }, 'POST', 'theme=joe-light');
      assert.equal(r.status, 200, JSON.stringify(headers));
    }
  });

  test('cross-site PUT, PATCH and DELETE on web routes are refused before any handler runs', async () => {
    const before = p.writes.length;
    const evil: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: `https://go.example.com:8443` },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      for (const h of evil) {
        const r = await get(`${p.s.url}/dashboard/probe/7`, { cookie, ...h }, method);
        assert.equal(r.status, 403, `${method} ${JSON.stringify(h)}`);
      }
    }
    const form = await get(`${p.s.url}/dashboard/probe/7`, { ...FORM, cookie, origin: 'https://evil.example' }, 'POST', '_method=DELETE');
    assert.equal(form.status, 403);
    assert.equal(p.writes.length, before, 'no handler ran');
  });

  test('a cross-site DELETE of a link is refused and the link still exists', async () => {
    const owner = (await p.s.store.users.findByEmail('writer@x.io'))!;
    const link = await createLink(p.s.store, { slug: 'keep-me', url: 'https://example.com', visibility: 'public', tags: [] }, owner.id);
    const r = await get(`${p.s.url}/dashboard/links/${link.id}`, { cookie, origin: 'https://evil.example' }, 'DELETE');
    assert.equal(r.status, 403);
    assert.ok(await p.s.store.links.get(link.id));
    const form = await get(
      `${p.s.url}/dashboard/links/${link.id}`,
      { ...FORM, cookie, 'sec-fetch-site': 'cross-site' },
      'POST',
      '_method=DELETE',
    );
    assert.equal(form.status, 403);
    assert.ok(await p.s.store.links.get(link.id));
  });

  test('the state-link API keeps its own origin rule and the bearer API is exempt', async () => {
    const api = await get(
      `${p.s.url}/api/v1/nothing-here`,
      { origin: 'https://evil.example', 'content-type': 'application/json' },
      'POST',
      '{}',
    );
    assert.notEqual(api.status, 403);
    assert.match(api.headers.get('content-type') ?? '', /^application\/json/);
    const links = await get(
      `${p.s.url}/api/links`,
      { origin: 'https://evil.example', 'content-type': 'text/plain' },
      'POST',
      '#state=v1.x',
    );
    assert.equal(links.status, 403);
    assert.deepEqual(JSON.parse(await links.text()), { error: 'forbidden_origin' });
  });

  test('form POSTs carrying _method reach the PUT and DELETE handlers of the same path', async () => {
    const direct = await get(`${p.s.url}/dashboard/probe/1`, { cookie }, 'PUT');
    assert.equal(await direct.text(), 'PUT:1');
    const put = await get(`${p.s.url}/dashboard/probe/2`, { ...FORM, cookie }, 'POST', '_method=PUT&title=x');
    assert.equal(put.status, 200);
    assert.equal(await put.text(), 'PUT:2+override');
    const del = await get(`${p.s.url}/dashboard/probe/3`, { ...FORM, cookie }, 'POST', '_method=delete');
    assert.equal(await del.text(), 'DELETE:3+override');
  });

  test('_method is honoured only on form posts, and the target route keeps its guard', async () => {
    const before = p.writes.length;
    const none = await get(`${p.s.url}/dashboard/probe/4`, { ...FORM, cookie }, 'POST', 'title=x');
    assert.equal(none.status, 405);
    assert.equal(none.headers.get('allow'), 'PUT, DELETE');
    assert.equal((await get(`${p.s.url}/dashboard/probe/4`, { ...FORM, cookie }, 'POST', '_method=GET')).status, 405);
    assert.equal(
      (await get(`${p.s.url}/dashboard/probe/4`, { ...FORM, cookie }, 'POST', '_method=PATCH')).status,
      405,
      'no PATCH route here',
    );
    const json = await get(`${p.s.url}/dashboard/probe/4`, { 'content-type': 'application/json', cookie }, 'POST', '{"_method":"DELETE"}');
    assert.equal(json.status, 405);
    const anon = await get(`${p.s.url}/dashboard/probe/4`, FORM, 'POST', '_method=DELETE');
    assert.equal(anon.status, 302);
    assert.match(anon.headers.get('location')!, /^\/auth\/login/);
    assert.equal(p.writes.length, before);
  });
});
