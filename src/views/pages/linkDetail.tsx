import type { LinkCaps } from '../../domain/caps.js';
import type { LinkHealth } from '../../domain/health.js';
import type { LifecycleState } from '../../domain/lifecycle.js';
import type { LinkGroup } from '../../store/groups.js';
import type { LinkShare, LinkView } from '../../store/types.js';
import { Icon } from '../partials/icons.js';
import { HealthSection } from '../partials/linkHealth.js';
import { BreakableUrl } from '../partials/breakable.js';
import { OwnersSection, SharesPanel, type MemberNotice } from '../partials/linkMembers.js';
import { LifecycleBadges, safeHref } from '../partials/linkTable.js';
import { LocalTime, RelativeTime } from '../partials/localTime.js';
import { RenewChoices } from '../partials/renewChoices.js';
import { Spinner, undoableDelete, VisibilityBadge } from '../partials/ui.js';
import { HistorySection, type LinkHistoryProps } from './linkHistory.js';

export interface LinkDetailProps {
  link: LinkView;
  caps: LinkCaps;
  state: LifecycleState;
  health: LinkHealth;
  /** The last probe's error text of a broken link (docs/lifecycle.md#outcomes-and-backoff). */
  healthError?: string | null;
  /** Whether the viewer gets "Recheck now": CanEdit on a link the checker visits (docs/lifecycle.md#recheck-now). */
  canRecheck?: boolean;
  /** The server runs no health checks (JOE_HEALTH_CHECKS_ENABLED=false): the line says so instead of "not checked yet". */
  checksOff?: boolean;
  /** Present only with CanManageShares on a secure link (docs/links.md#visibility). */
  shares: LinkShare[] | null;
  /** The groups that own the link (docs/groups.md#what-a-group-grants). */
  ownerGroups: LinkGroup[];
  /** The groups the link is shared with; present when `shares` is. */
  shareGroups: LinkGroup[] | null;
  shortKeyword: string;
  origin: string;
  qrSvg: string;
  /** The store's clock, for the relative expiry. */
  now: number;
  ownersError?: string | null;
  sharesError?: string | null;
  /** The address a failed add-by-email form sent, shown again beside its error. */
  ownersEmail?: string;
  sharesEmail?: string;
  /** A calm note beside a person who already had the role being given (docs/web-ui.md#feedback). */
  ownersNotice?: MemberNotice | null;
  sharesNotice?: MemberNotice | null;
  /** The newest page of the link's history (docs/history.md#web-pages). */
  history: LinkHistoryProps;
}

/** What the page says while its delete waits for Undo (docs/web-ui.md#deleting-with-undo); shown by the page script. */
function DeletePendingNote({ name }: { name: string }) {
  return (
    <div class="alert alert-warning" hidden data-delete-note>
      <Icon name="trash" class="size-5 shrink-0" />
      <span class="min-w-0 break-words">{`${name} will be deleted in a few seconds unless you undo it.`}</span>
    </div>
  );
}

export function LinkDetail(p: LinkDetailProps) {
  const { link, caps, state } = p;
  const base = `/dashboard/links/${link.id}`;
  const shortUrl = `${p.origin}/${link.slug}`;
  const href = safeHref(link.url);
  const lifecycleForm = (action: 'archive' | 'unarchive', label: string) => (
    <form
      method="post"
      action={`${base}/${action}`}
      hx-post={`${base}/${action}`}
      hx-target="#link-detail"
      hx-swap="outerHTML"
      hx-disabled-elt="find button"
    >
      <button type="submit" class="btn btn-sm">
        <Spinner />
        <Icon name={action === 'archive' ? 'archive' : 'undo'} class="size-4" />
        {label}
      </button>
    </form>
  );
  return (
    <div id="link-detail" class="space-y-6" hx-get={base} hx-trigger="linkUpdated from:body" hx-swap="outerHTML">
      {caps.canDelete && <DeletePendingNote name={`${p.shortKeyword}/${link.slug}`} />}
      <header class="space-y-2">
        <a href="/dashboard" class="link link-hover text-sm inline-flex items-center gap-1 opacity-80">
          <Icon name="arrowLeft" class="size-4" />
          Dashboard
        </a>
        <div class="flex flex-wrap items-center justify-between gap-3">
          <div class="flex flex-wrap items-center gap-2 min-w-0">
            <h1 class="text-2xl font-bold font-mono wrap-anywhere">{link.slug}</h1>
            <VisibilityBadge visibility={link.visibility} />
            <LifecycleBadges row={{ link, caps, state, health: p.health }} renewFrom="detail" />
          </div>
          <div class="flex flex-wrap items-center gap-2">
            {caps.canStats && (
              <a class="btn btn-sm" href={`${base}/stats`}>
                <Icon name="chart" class="size-4" />
                Stats
              </a>
            )}
            {caps.canEdit && (
              <a class="btn btn-sm" href={`${base}/edit`} hx-get={`${base}/edit`} hx-target="#modal">
                <Icon name="pencil" class="size-4" />
                Edit
              </a>
            )}
            {caps.canEdit && (state === 'archived' ? lifecycleForm('unarchive', 'Unarchive') : lifecycleForm('archive', 'Archive'))}
            {caps.canDelete && (
              <a
                class="btn btn-sm btn-error"
                href={`${base}/confirm-delete`}
                {...undoableDelete({ endpoint: base, name: `${p.shortKeyword}/${link.slug}`, mark: 'link-detail', then: '/dashboard' })}
              >
                <Icon name="trash" class="size-4" />
                Delete
              </a>
            )}
          </div>
        </div>
      </header>

      <div class="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <section class="card bg-base-100 border border-base-300" aria-label="Link">
          <div class="card-body gap-4">
            <div class="flex flex-wrap items-center gap-3">
              <p class="font-mono text-xl wrap-anywhere">
                <span class="text-base-content/70">{`${p.shortKeyword}/`}</span>
                <span class="link-brand font-semibold">{link.slug}</span>
              </p>
              <button type="button" class="btn btn-sm btn-primary" data-copy={shortUrl} data-copy-toast="Link copied!">
                <Icon name="clipboard" class="size-4" />
                Copy go-link
              </button>
            </div>
            <p class="text-sm text-base-content/70 -mt-2" data-plus-hint>
              {'Add + to come back here: '}
              <code class="font-mono wrap-anywhere">{`${p.shortKeyword}/${link.slug}+`}</code>
            </p>
            {link.aliases.length > 0 && (
              <div>
                <p class="text-sm font-medium" id="aliases-label">
                  Also known as
                </p>
                <ul class="flex flex-wrap gap-x-4 gap-y-1 font-mono" aria-labelledby="aliases-label" data-aliases>
                  {link.aliases.map((a) => (
                    <li class="wrap-anywhere">{`${p.shortKeyword}/${a}`}</li>
                  ))}
                </ul>
              </div>
            )}
            <div>
              <p class="text-sm font-medium">Destination:</p>
              {href ? (
                <a href={href} target="_blank" rel="noopener noreferrer" class="link wrap-anywhere inline-flex items-start gap-1">
                  {/* One flex item, so the URL breaks between its parts (docs/web-ui.md#rendering-conventions). */}
                  <span class="min-w-0">
                    <BreakableUrl url={link.url} />
                  </span>
                  <Icon name="external" class="size-4 shrink-0 mt-0.5" />
                </a>
              ) : (
                // A template (or an old non-http value) is shown as text: a link to it would open its placeholders.
                <code class="block font-mono text-sm wrap-anywhere" data-destination-text>
                  <BreakableUrl url={link.url} />
                </code>
              )}
            </div>
            {link.defaultUrl !== null && (
              <div data-default-url>
                <p class="text-sm font-medium">
                  {'Destination when nothing is filled in ('}
                  <code class="font-mono">{`${p.shortKeyword}/${link.slug}`}</code>
                  {'):'}
                </p>
                {safeHref(link.defaultUrl) ? (
                  <a href={safeHref(link.defaultUrl)!} target="_blank" rel="noopener noreferrer" class="link wrap-anywhere">
                    {link.defaultUrl}
                  </a>
                ) : (
                  <p class="wrap-anywhere">{link.defaultUrl}</p>
                )}
              </div>
            )}
            {link.forwardPathAndQuery && (
              <p class="text-sm" data-forwarding>
                {'Forwards extra path and query: '}
                <code class="font-mono wrap-anywhere">{`${p.shortKeyword}/${link.slug}/more?x=1`}</code>
                {' opens the destination followed by '}
                <code class="font-mono">/more?x=1</code>.
              </p>
            )}
            {link.title && (
              <div>
                <p class="text-sm font-medium">Title</p>
                <p class="break-words">{link.title}</p>
              </div>
            )}
            {link.description && (
              <div>
                <p class="text-sm font-medium">Description</p>
                <p class="whitespace-pre-line break-words">{link.description}</p>
              </div>
            )}
            {link.tags.length > 0 && (
              <div class="flex flex-wrap gap-1" aria-label="Tags">
                {link.tags.map((t) => (
                  <a class="badge badge-outline hover:bg-base-200" href={`/dashboard/tags/${t.slug}`}>
                    {t.name}
                  </a>
                ))}
              </div>
            )}
            {link.expiresAt !== null && (
              <p class="text-sm">
                {`${link.expiresAt <= p.now ? 'Expired' : 'Expires'} `}
                <RelativeTime ms={link.expiresAt} now={p.now} />
              </p>
            )}
            {state === 'expired' && caps.canEdit && <RenewChoices linkId={link.id} hxTarget="#link-detail" />}
            <HealthSection
              link={link}
              health={p.health}
              state={state}
              lastError={p.healthError ?? null}
              canRecheck={p.canRecheck === true}
              checksOff={p.checksOff === true}
            />
            <p class="text-sm text-base-content/70">
              {'Created '}
              <LocalTime ms={link.createdAt} />
              {' · Updated '}
              <LocalTime ms={link.updatedAt} />
            </p>
          </div>
        </section>
        <section class="card bg-base-100 border border-base-300" aria-labelledby="qr-title">
          <div class="card-body items-center text-center gap-3">
            <h2 id="qr-title" class="card-title text-base">
              QR code
            </h2>
            <div
              class="qr-code bg-white p-2 rounded-box w-44"
              role="img"
              aria-label={`QR code for ${shortUrl}`}
              dangerouslySetInnerHTML={{ __html: p.qrSvg }}
            ></div>
            <a class="btn btn-sm" href={`${base}/qr.svg`} download={`${link.slug}-qr.svg`}>
              <Icon name="download" class="size-4" />
              Download QR
            </a>
          </div>
        </section>
      </div>

      <OwnersSection
        linkId={link.id}
        owners={link.owners}
        groups={p.ownerGroups}
        canManage={caps.canManageShares}
        error={p.ownersError}
        notice={p.ownersNotice}
        email={p.ownersEmail}
      />
      {p.shares && (
        <SharesPanel
          linkId={link.id}
          shares={p.shares}
          groups={p.shareGroups ?? []}
          error={p.sharesError}
          notice={p.sharesNotice}
          email={p.sharesEmail}
        />
      )}
      <HistorySection {...p.history} />
    </div>
  );
}
