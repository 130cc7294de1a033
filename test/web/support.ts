import { get, sessionCookie, startTestServer, type RawResponse, type TestServer } from '../helpers/server.js';
import type { User } from '../../src/store/types.js';

/**
 * A real server plus a tiny client per user: pages, HTMX fragments and form
 * posts over real HTTP with that user's session cookie.
 */

export interface Client {
  user: User | null;
  cookie: string;
  /** GET a page; `htmx` adds `HX-Request: true`. */
  page(path: string, opts?: { htmx?: boolean; headers?: Record<string, string> }): Promise<Res>;
  /** A form submission (urlencoded body). `htmx` marks it as sent by HTMX. */
  send(
    method: string,
    path: string,
    fields?: Record<string, string | string[]>,
    opts?: { htmx?: boolean; headers?: Record<string, string> },
  ): Promise<Res>;
}

export interface Res {
  status: number;
  body: string;
  header(name: string): string | null;
}

async function wrap(r: RawResponse): Promise<Res> {
  return { status: r.status, body: await r.text(), header: (n) => r.headers.get(n) };
}

export function encodeForm(fields: Record<string, string | string[]>): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) sp.append(k, one);
  return sp.toString();
}

export function clientFor(s: TestServer, user: User | null, cookie: string): Client {
  const base = (extra: Record<string, string> = {}) => ({ ...(cookie ? { cookie } : {}), ...extra });
  return {
    user,
    cookie,
    page: async (path, opts = {}) =>
      wrap(await get(`${s.url}${path}`, base({ ...(opts.htmx ? { 'hx-request': 'true' } : {}), ...opts.headers }))),
    send: async (method, path, fields = {}, opts = {}) => {
      const body = encodeForm(fields);
      // Node sends DELETE bodies unframed unless told their length; browsers always say it.
      const headers = {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(Buffer.byteLength(body)),
        ...(opts.htmx ? { 'hx-request': 'true' } : {}),
        ...opts.headers,
      };
      return wrap(await get(`${s.url}${path}`, base(headers), method, body));
    },
  };
}

export async function signedIn(s: TestServer, email: string, opts: { name?: string; admin?: boolean } = {}): Promise<Client> {
  const user = await s.store.users.create({ email, displayName: opts.name, role: opts.admin ? 'admin' : 'user' });
  return clientFor(s, user, await sessionCookie(s.store, user));
}

export function anonymous(s: TestServer): Client {
  return clientFor(s, null, '');
}

/** The <main> of a full page, so assertions ignore the layout (sidebar, nav). */
export function mainOf(html: string): string {
  const m = /<main[^>]*>([\s\S]*)<\/main>/.exec(html);
  return m ? m[1]! : html;
}

/** Text content roughly as a reader sees it: tags dropped, entities decoded, spaces collapsed. */
export function textOf(html: string): string {
  return (
    html
      // A line-break point inside a word or URL is no space in what a reader sees.
      .replace(/<wbr\s*\/?>/g, '')
      .replace(/<[^>]*>/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

export async function startWebServer(opts: { env?: Record<string, string>; now?: () => number } = {}): Promise<TestServer> {
  return startTestServer({ env: opts.env, start: opts.now ? { now: opts.now } : {} });
}

function excerpt(body: string): string {
  return body.length > 400 ? `${body.slice(0, 200)} … (${body.length} chars)` : body;
}

/** Like assert.match, without dumping a whole page into the failure message. */
export function has(body: string, re: RegExp, message?: string): void {
  if (!re.test(body)) throw new Error(`${message ? `${message}: ` : ''}expected ${re} in ${excerpt(body)}`);
}

export function lacks(body: string, re: RegExp, message?: string): void {
  const m = re.exec(body);
  if (m)
    throw new Error(
      `${message ? `${message}: ` : ''}did not expect ${re}; found ${JSON.stringify(body.slice(Math.max(0, m.index - 80), m.index + 120))}`,
    );
}

/** The events an HTMX answer triggers (its `HX-Trigger` JSON). */
export function triggers(r: Res): Record<string, unknown> {
  const h = r.header('hx-trigger');
  return h ? (JSON.parse(h) as Record<string, unknown>) : {};
}

export interface ToastSeen {
  level: string;
  message: string;
  copy?: string;
}

/** The toast an HTMX answer asks the page to show (docs/web-ui.md#feedback), or null. */
export function toastOf(r: Res): ToastSeen | null {
  return (triggers(r).showToast as ToastSeen | undefined) ?? null;
}

/** The message a plain form post leaves for the next full page (its `flash` cookie), or null. */
export function flashOf(r: Res): ToastSeen | null {
  const line = (r.header('set-cookie') ?? '').split(/,\s*(?=[a-z_]+=)/i).find((c) => c.startsWith('flash='));
  const value = line?.slice('flash='.length).split(';')[0];
  if (!value) return null;
  return JSON.parse(Buffer.from(decodeURIComponent(value), 'base64url').toString('utf8')) as ToastSeen;
}
