import { randomUUID } from 'node:crypto';
import type { Updateable } from 'kysely';
import type { LinksTable } from '../db/schema.js';
import { AppError } from '../domain/errors.js';
import { validateDescription, validateTitle, validateVisibility } from '../domain/linkInput.js';
import type { LinkExportLine, LinkRecord } from '../domain/linkRecords.js';
import { assertValidSlug } from '../domain/slug.js';
import { normalizeTags } from '../domain/tags.js';
import { validateDestination } from '../domain/url.js';
import { isUniqueViolation, retryOnDeadlock, translateDbError } from './dbErrors.js';
import type { Store } from './index.js';
import { LINK_COLUMNS, toLink } from './rows.js';
import type { LinkView } from './types.js';

/**
 * Bulk export and import of links (api.md §6.23): the JSON Lines export that
 * `GET /api/v1/links/export` streams and `joe-links links export` prints, and
 * the idempotent import behind `joe-links links import`. Each imported link
 * is written in its own transaction, so one bad record never leaves a half
 * link and never stops the others.
 */

export type ImportAction = 'created' | 'updated' | 'skipped';

export interface ImportOutcome {
  action: ImportAction;
  /** Things worth telling the operator, e.g. owners that matched no user. */
  notes: string[];
}

export interface ImportOptions {
  /** Owner of links whose listed owners match no user (and of every CSV row); null: such links are refused. */
  fallbackOwnerId: string | null;
  /** Decide and validate everything, then roll back. */
  dryRun: boolean;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
const wholeSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

export function toExportLine(l: LinkView): LinkExportLine {
  return {
    slug: l.slug,
    url: l.url,
    title: l.title,
    description: l.description,
    visibility: l.visibility,
    tags: l.tags.map((t) => t.name),
    owners: l.owners.map((o) => o.email),
    expires_at: isoOrNull(l.expiresAt),
    archived_at: isoOrNull(l.archivedAt),
    health_checks_disabled: l.healthChecksDisabled,
    created_at: iso(l.createdAt),
  };
}

class DryRunRollback extends Error {}

export class LinkTransferStore {
  constructor(private readonly store: Store) {}

  /**
   * Every link in slug order, one keyset page at a time: memory stays flat
   * however many links there are, and a link created or deleted during the
   * export can never make another appear twice.
   */
  async *exportLines(pageSize = 500): AsyncGenerator<LinkExportLine> {
    let afterSlug: string | undefined;
    for (;;) {
      const page = await this.store.links.list({ scope: 'all', viewer: null, afterSlug, limit: pageSize });
      for (const l of page.links) yield toExportLine(l);
      if (!page.hasMore || page.links.length === 0) return;
      afterSlug = page.links[page.links.length - 1]!.slug;
    }
  }

  /**
   * Creates the link when its slug is free, updates it when the record
   * differs from what is stored, and otherwise leaves it alone — so importing
   * the same file twice changes nothing the second time. Every link rule of
   * core.md §5 applies, except that expiry and archive times are restored as
   * given (an export of an expired link must import back). Fields the record
   * does not carry (CSV has no visibility, owners or dates) are kept.
   */
  async importRecord(record: LinkRecord, opts: ImportOptions): Promise<ImportOutcome> {
    assertValidSlug(record.slug);
    const url = validateDestination(record.url);
    const title = validateTitle(record.title);
    const description = validateDescription(record.description);
    const tags = normalizeTags(record.tags);
    const visibility = record.visibility === undefined ? undefined : validateVisibility(record.visibility);
    const expiresAt = record.expiresAt === undefined || record.expiresAt === null ? record.expiresAt : wholeSecond(record.expiresAt);
    const archivedAt = record.archivedAt;

    const notes: string[] = [];
    const ownerIds: string[] = [];
    for (const email of record.owners ?? []) {
      const user = await this.store.users.findByEmail(email);
      if (!user) notes.push(`owner ${email} matches no user`);
      else if (!ownerIds.includes(user.id)) ownerIds.push(user.id);
    }

    const db = this.store.db.kysely;
    const now = this.store.now();
    let outcome: ImportOutcome = { action: 'skipped', notes };
    try {
      await retryOnDeadlock(() =>
        db.transaction().execute(async (trx) => {
          const row = await trx.selectFrom('links').select(LINK_COLUMNS).where('slug', '=', record.slug).executeTakeFirst();
          if (!row) {
            const owners = ownerIds.length > 0 ? ownerIds : opts.fallbackOwnerId !== null ? [opts.fallbackOwnerId] : [];
            if (owners.length === 0) {
              throw new AppError('BAD_REQUEST', 'no owner: none of its owners is a user here; pass --owner to give such links to someone');
            }
            const given = 'given to the --owner user';
            if (ownerIds.length === 0 && (record.owners?.length ?? 0) > 0 && !notes.includes(given)) notes.push(given);
            const id = randomUUID();
            await trx
              .insertInto('links')
              .values({
                id,
                slug: record.slug,
                url,
                title,
                description,
                visibility: visibility ?? 'public',
                created_at: record.createdAt ?? now,
                updated_at: now,
                expires_at: expiresAt ?? null,
                archived_at: archivedAt ?? null,
                health_checks_disabled: record.healthChecksDisabled ? 1 : 0,
              })
              .execute();
            await trx
              .insertInto('link_owners')
              .values(owners.map((u, i) => ({ link_id: id, user_id: u, is_primary: i === 0 ? 1 : 0, created_at: now })))
              .execute();
            await this.store.tags.setForLink(id, tags, trx, { fresh: true });
            outcome = { action: 'created', notes };
          } else {
            const link = toLink(row);
            const set: Updateable<LinksTable> = {};
            if (link.url !== url) set.url = url;
            if (link.title !== title) set.title = title;
            if (link.description !== description) set.description = description;
            if (visibility !== undefined && link.visibility !== visibility) set.visibility = visibility;
            if (expiresAt !== undefined && link.expiresAt !== expiresAt) set.expires_at = expiresAt;
            if (archivedAt !== undefined && link.archivedAt !== archivedAt) set.archived_at = archivedAt;
            if (record.healthChecksDisabled !== undefined && link.healthChecksDisabled !== record.healthChecksDisabled) {
              set.health_checks_disabled = record.healthChecksDisabled ? 1 : 0;
            }
            const stored = (await this.store.tags.forLinks([link.id], trx)).get(link.id) ?? [];
            const tagsDiffer =
              stored
                .map((t) => t.slug)
                .sort()
                .join('\n') !==
              tags
                .map((t) => t.slug)
                .sort()
                .join('\n');
            const current = new Set(((await this.store.owners.forLinks([link.id], trx)).get(link.id) ?? []).map((o) => o.userId));
            // Owners are only ever added: an import never takes a link away from anyone.
            const newOwners = ownerIds.filter((u) => !current.has(u));
            if (Object.keys(set).length === 0 && !tagsDiffer && newOwners.length === 0) return;
            await trx
              .updateTable('links')
              .set({ ...set, updated_at: now })
              .where('id', '=', link.id)
              .execute();
            if (tagsDiffer) await this.store.tags.setForLink(link.id, tags, trx);
            if (newOwners.length > 0) {
              await trx
                .insertInto('link_owners')
                .values(newOwners.map((u) => ({ link_id: link.id, user_id: u, is_primary: 0, created_at: now })))
                .execute();
            }
            outcome = { action: 'updated', notes };
          }
          if (opts.dryRun) throw new DryRunRollback();
        }),
      );
    } catch (e) {
      if (e instanceof DryRunRollback) return outcome;
      if (e instanceof AppError) throw e;
      if (isUniqueViolation(e)) throw new AppError('SLUG_CONFLICT', 'slug was taken while importing; run the import again');
      translateDbError(e);
    }
    return outcome;
  }
}
