import { ConfigError, type Setting } from './sources.js';

/** JOE_HTTP_ADDR: `host:port` or `:port`, an IPv6 host in brackets. */
export function parseListenAddr(text: string): { host: string; port: number } {
  const m = /^(.*):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    throw new ConfigError(`invalid JOE_HTTP_ADDR: "${text}" (expected host:port or :port, e.g. :8080)`);
  }
  const host = m[1]!.replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? '0.0.0.0' : host, port };
}

/** An absolute http(s) URL without its trailing slashes. */
export function absoluteUrl(s: Setting, text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new ConfigError(`invalid ${s.env}: "${text}" (expected an absolute http(s) URL)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError(`invalid ${s.env}: "${text}" (expected an absolute http(s) URL)`);
  }
  return text.replace(/\/+$/, '');
}
