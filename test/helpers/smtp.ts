import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package) that keeps what
 * it receives, and can refuse the next messages with a given reply (`451`
 * then accept) to exercise retries. `stop()` and `start()` again on the same
 * port play a mail server that is down for a while.
 */

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  headers: Map<string, string>;
  subject: string;
  text: string;
  html: string;
}

export interface TestSmtp {
  port: number;
  url: string;
  received: ReceivedMail[];
  /** The next `count` messages are refused with `code` (e.g. 451) after DATA. */
  refuseNext(count: number, code: number, message?: string): void;
  stop(): Promise<void>;
  start(): Promise<void>;
}

function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = [];
  const text = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '=' && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeBody(body: string, encoding: string | undefined): string {
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** Headers of one MIME entity, unfolded, names lower-cased; encoded words (=?UTF-8?Q?…?=) decoded. */
function parseHeaders(block: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out.set(line.slice(0, i).trim().toLowerCase(), decodeWords(line.slice(i + 1).trim()));
  }
  return out;
}

function decodeWords(v: string): string {
  return v
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_m, _cs, enc: string, data: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}

function split(raw: string): { headers: Map<string, string>; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  return { headers: parseHeaders(raw.slice(0, at)), body: raw.slice(at).replace(/^\r?\n\r?\n/, '') };
}

export function parseMail(raw: string, from: string, to: string[]): ReceivedMail {
  const { headers, body } = split(raw);
  let text = '';
  let html = '';
  const type = headers.get('content-type') ?? '';
  const boundary = /boundary="?([^";]+)"?/.exec(type)?.[1];
  const parts = boundary ? body.split(`--${boundary}`).slice(1, -1) : [raw];
  for (const part of parts) {
    const p = split(part.replace(/^\r?\n/, ''));
    const ct = p.headers.get('content-type') ?? '';
    const decoded = decodeBody(p.body, p.headers.get('content-transfer-encoding'));
    if (ct.startsWith('text/plain')) text = decoded;
    if (ct.startsWith('text/html')) html = decoded;
  }
  return { from, to, raw, headers, subject: headers.get('subject') ?? '', text, html };
}

export async function startSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const refusals: Array<{ code: number; message: string }> = [];
  let port = 0;
  let server: SMTPServer | null = null;
  const listen = async () => {
    server = new SMTPServer({
      // Plain SMTP on loopback: no STARTTLS offered, any or no login accepted.
      disabledCommands: ['STARTTLS'],
      authOptional: true,
      logger: false,
      onAuth(_auth, _session, cb) {
        cb(null, { user: 'test' });
      },
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const refusal = refusals.shift();
          if (refusal) {
            const err = new Error(refusal.message) as Error & { responseCode: number };
            err.responseCode = refusal.code;
            return cb(err);
          }
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          received.push(
            parseMail(
              Buffer.concat(chunks).toString('utf8'),
              from,
              session.envelope.rcptTo.map((r) => r.address),
            ),
          );
          cb();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server!.server.address() as AddressInfo).port;
  };
  await listen();
  return {
    get port() {
      return port;
    },
    get url() {
      return `smtp://mailer:secret@127.0.0.1:${port}`;
    },
    received,
    refuseNext(count, code, message = 'try again later') {
      for (let i = 0; i < count; i++) refusals.push({ code, message });
    },
    async stop() {
      const s = server;
      server = null;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    start: listen,
  };
}
