import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { LinkClicksTable } from '../../src/db/schema.js';
import type { Store } from '../../src/store/index.js';
import type { Link, User } from '../../src/store/types.js';
import type { DbContext } from '../helpers/databases.js';
import { createLink } from '../helpers/links.js';

export const DAY = 86_400_000;
export const HOUR = 3_600_000;

export const UA = {
  firefoxWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
  chromeMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
  edgeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.67',
  curl: 'curl/8.5.0',
};

export interface ClickSpec {
  at: number;
  userId?: string | null;
  referrer?: string | null;
  ua?: string | null;
  id?: string;
}

/** Inserts click rows directly, as the click writer would have. */
export async function addClicks(store: Store, linkId: string, clicks: readonly ClickSpec[]): Promise<string[]> {
  const rows: LinkClicksTable[] = clicks.map((c) => ({
    id: c.id ?? randomUUID(),
    link_id: linkId,
    user_id: c.userId ?? null,
    ip_hash: 'a'.repeat(64),
    user_agent: c.ua === undefined ? UA.firefoxWindows : c.ua,
    referrer: c.referrer ?? null,
    clicked_at: c.at,
  }));
  for (let i = 0; i < rows.length; i += 1_000) await store.clicks.insertBatch(rows.slice(i, i + 1_000));
  return rows.map((r) => r.id);
}

let seq = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++seq}`;

export async function mkUser(store: Store, name: string, admin = false): Promise<User> {
  const tag = unique(name.toLowerCase().replace(/[^a-z0-9]+/g, '-'));
  return store.users.create({ email: `${tag}@example.com`, displayName: name, role: admin ? 'admin' : 'user' });
}

export async function mkLink(
  c: DbContext,
  owner: User,
  opts: { visibility?: string; shareWith?: string[]; ageDays?: number; slug?: string } = {},
): Promise<Link> {
  const link = await createLink(
    c.store,
    { slug: opts.slug ?? unique('l'), url: 'https://dest.example/', visibility: opts.visibility ?? 'public' },
    owner.id,
    { shareWith: opts.shareWith ?? [] },
  );
  if (opts.ageDays !== undefined) {
    const createdAt = c.clock.now - opts.ageDays * DAY;
    await c.db.kysely.updateTable('links').set({ created_at: createdAt }).where('id', '=', link.id).execute();
    return { ...link, createdAt };
  }
  return link;
}

export async function clearRollups(c: DbContext): Promise<void> {
  await c.db.kysely.deleteFrom('link_click_rollups').execute();
  await c.db.kysely.deleteFrom('click_referrer_rollups').execute();
  await c.db.kysely.deleteFrom('link_click_rollup_spans').execute();
}

/**
 * Reads once from raw rows alone, then again after the roll-up job has
 * summarised every closed day, and requires the same answer: the escape
 * hatch must never change what a surface shows.
 */
export async function bothPaths<T>(c: DbContext, read: () => Promise<T>, opts: { expectRolled?: boolean } = {}): Promise<T> {
  await clearRollups(c);
  const raw = await read();
  const run = await c.store.clickRollups.rollUp();
  if (opts.expectRolled !== false) assert.ok(run.rolled > 0, 'the roll-up job summarised some days');
  const rolled = await read();
  assert.deepEqual(rolled, raw, 'the rollup path answers exactly like the raw path');
  return rolled;
}

/** A strict RFC 4180 parser: CRLF-terminated records, quoted fields with doubled quotes. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let i = 0;
  while (i < text.length) {
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= text.length) throw new Error('unterminated quoted field');
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          field += text[i++];
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
          if (text[i] === '"') throw new Error(`bare quote in unquoted field at ${i}`);
          field += text[i++];
        }
      }
      record.push(field);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r' && text[i + 1] === '\n') {
        i += 2;
        break;
      }
      throw new Error(`expected , or CRLF at ${i}, found ${JSON.stringify(text[i])}`);
    }
    records.push(record);
  }
  return records;
}
