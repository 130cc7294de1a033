import type { LinkCaps } from '../../domain/caps.js';
import type { LinkHealth } from '../../domain/health.js';
import type { LifecycleState } from '../../domain/lifecycle.js';
import { hasPlaceholders } from '../../domain/url.js';
import type { LinkOwner, LinkShare, LinkView } from '../../store/types.js';
import { Icon } from '../partials/icons.js';
import { LifecycleBadges, safeHref } from '../partials/linkTable.js';
import { LocalTime, RelativeTime } from '../partials/localTime.js';
import { RenewChoices } from '../partials/renewChoices.js';
import { Avatar, FieldError, Modal, Panel, Spinner, undoableDelete, VisibilityBadge } from '../partials/ui.js';
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
  /** Present only with CanManageShares on a secure link (docs/links.md#visibility). */
  shares: LinkShare[] | null;
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

/** A note shown beside one person of the owners or shares list. */
export interface MemberNotice {
  userId: string;
  message: string;
}

/** The note beside a person, announced politely and marked so the eye finds the row. */
function Notice({ notice, userId }: { notice: MemberNotice | null | undefined; userId: string }) {
  if (!notice || notice.userId !== userId) return null;
  return (
    <p class="text-sm flex items-center gap-1 mt-0.5" role="status">
      <Icon name="check" class="size-4 shrink-0" />
      {notice.message}
    </p>
  );
}

/** The add-by-email form of the owners and shares panels; a refusal is said beside the field. */
function AddPersonForm({
  action,
  target,
  id,
  label,
  button,
  error,
  email,
}: {
  action: string;
  target: string;
  id: string;
  label: string;
  button: string;
  error: string | null | undefined;
  email: string | undefined;
}) {
  return (
    <form method="post" action={action} hx-post={action} hx-target={target} hx-swap="outerHTML" class="flex flex-wrap gap-2 items-start">
      <div class="flex-1 min-w-48">
        <label for={id} class="block text-sm font-medium mb-1">
          {label}
        </label>
        <input
          id={id}
          name="email"
          type="email"
          value={error ? email : undefined}
          class={`input w-full${error ? ' input-error' : ''}`}
          placeholder="colleague@example.com"
          autocomplete="off"
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
        <FieldError id={`${id}-error`} message={error ?? undefined} />
      </div>
      <button type="submit" class="btn sm:mt-6">
        <Spinner />
        {button}
      </button>
    </form>
  );
}

/**
 * The health line of docs/lifecycle.md#badges-and-the-admin-report. A link the checker never
 * visits says why rather than "not checked yet"; a broken one names its last error.
 */
function HealthLine({
  link,
  health,
  state,
  lastError,
}: {
  link: LinkView;
  health: LinkHealth;
  state: LifecycleState;
  lastError: string | null;
}) {
  if (link.healthChecksDisabled) return <p class="text-sm">Health checks: opted out</p>;
  const unchecked = uncheckedReason(link, state);
  if (unchecked !== null) return <p class="text-sm text-base-content/70">{unchecked}</p>;
  if (health.status === 'unchecked') return <p class="text-sm text-base-content/70">Destination not checked yet.</p>;
  const label = health.status === 'ok' ? 'OK' : health.status === 'broken' ? 'Broken' : 'Not checkable under current server policy';
  return (
    <div class="text-sm space-y-1">
      <p class="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span>Health:</span>
        {health.status === 'broken' ? <span class="badge badge-sm badge-error">broken</span> : <span class="font-medium">{label}</span>}
        {health.lastStatus !== null && <span>{`· last status ${health.lastStatus}`}</span>}
        {health.lastCheckedAt !== null && (
          <span>
            {'· checked '}
            <LocalTime ms={health.lastCheckedAt} />
          </span>
        )}
      </p>
      {health.status === 'broken' && (
        <p class="break-words" data-health-error>
          {`Last error: ${lastError ?? (health.lastStatus !== null ? `the destination answered HTTP ${health.lastStatus}` : 'no answer')}`}
        </p>
      )}
    </div>
  );
}

export interface HealthSectionProps {
  link: LinkView;
  health: LinkHealth;
  state: LifecycleState;
  lastError: string | null;
  canRecheck: boolean;
}

/**
 * The health line with its "Recheck now" button (docs/lifecycle.md#recheck-now). The button's
 * answer replaces this section; without JavaScript the form posts and the page comes back.
 */
export function HealthSection(p: HealthSectionProps) {
  const action = `/dashboard/links/${p.link.id}/recheck`;
  return (
    <div id="link-health" class="flex flex-wrap items-start gap-x-3 gap-y-2">
      <div class="min-w-0 flex-1">
        <HealthLine link={p.link} health={p.health} state={p.state} lastError={p.lastError} />
      </div>
      {p.canRecheck && (
        <form method="post" action={action} hx-post={action} hx-target="#link-health" hx-swap="outerHTML" hx-disabled-elt="find button">
          <button type="submit" class="btn btn-sm">
            <Spinner />
            <Icon name="refresh" class="size-4" />
            Recheck now
          </button>
        </form>
      )}
    </div>
  );
}

/** Why the checker never visits this link (docs/lifecycle.md#health-checks), or null when it does. */
function uncheckedReason(link: LinkView, state: LifecycleState): string | null {
  if (state === 'archived') return 'Destination not checked while the link is archived; unarchiving resumes the checks.';
  if (state === 'expired') return 'Destination not checked while the link is expired; renewing resumes the checks.';
  if (hasPlaceholders(link.url)) return 'Destination not checked: a template link’s destination depends on the values filled in.';
  return null;
}

export function OwnersSection({
  linkId,
  owners,
  canManage,
  error,
  notice,
  email,
}: {
  linkId: string;
  owners: readonly LinkOwner[];
  canManage: boolean;
  error?: string | null;
  notice?: MemberNotice | null;
  email?: string;
}) {
  const base = `/dashboard/links/${linkId}/owners`;
  return (
    <section id="owners-section" class="card bg-base-100 border border-base-300" aria-labelledby="owners-title">
      <div class="card-body gap-3">
        <h2 id="owners-title" class="card-title text-base">
          Owners
        </h2>
        <ul class="divide-y divide-base-300">
          {owners.map((o) => (
            <li class={`flex items-center gap-3 py-2${notice?.userId === o.userId ? ' member-noticed' : ''}`}>
              <Avatar name={o.displayName || o.email} />
              <div class="min-w-0 flex-1">
                <p class="font-medium truncate">
                  {o.displayName}
                  {o.isPrimary && <span class="badge badge-sm badge-neutral ml-2">primary</span>}
                </p>
                <p class="text-sm text-base-content/70 truncate">{o.email}</p>
                <Notice notice={notice} userId={o.userId} />
              </div>
              {canManage && !o.isPrimary && (
                <form
                  method="post"
                  action={`${base}/${o.userId}`}
                  hx-delete={`${base}/${o.userId}`}
                  hx-target="#owners-section"
                  hx-swap="outerHTML"
                >
                  <input type="hidden" name="_method" value="DELETE" />
                  <button type="submit" class="btn btn-ghost btn-sm" aria-label={`Remove ${o.displayName || o.email} as co-owner`}>
                    Remove
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
        {canManage && (
          <AddPersonForm
            action={base}
            target="#owners-section"
            id="owner-email"
            label="Add a co-owner"
            button="Add co-owner"
            error={error}
            email={email}
          />
        )}
      </div>
    </section>
  );
}

export function SharesPanel({
  linkId,
  shares,
  error,
  notice,
  email,
}: {
  linkId: string;
  shares: readonly LinkShare[];
  error?: string | null;
  notice?: MemberNotice | null;
  email?: string;
}) {
  const base = `/dashboard/links/${linkId}/shares`;
  return (
    <section id="shares-panel" class="card bg-base-100 border border-base-300" aria-labelledby="shares-title">
      <div class="card-body gap-3">
        <h2 id="shares-title" class="card-title text-base">
          Shared with
        </h2>
        <p class="text-sm text-base-content/70">
          This link is secure: only its owners and the people listed here can follow it, after signing in.
        </p>
        {shares.length === 0 ? (
          <p class="text-sm">No users with access yet.</p>
        ) : (
          <ul class="divide-y divide-base-300">
            {shares.map((s) => (
              <li class={`flex items-center gap-3 py-2${notice?.userId === s.userId ? ' member-noticed' : ''}`}>
                <Avatar name={s.displayName || s.email} />
                <div class="min-w-0 flex-1">
                  <p class="font-medium truncate">{s.displayName}</p>
                  <p class="text-sm text-base-content/70 truncate">{s.email}</p>
                  <Notice notice={notice} userId={s.userId} />
                </div>
                <form
                  method="post"
                  action={`${base}/${s.userId}`}
                  hx-delete={`${base}/${s.userId}`}
                  hx-target="#shares-panel"
                  hx-swap="outerHTML"
                >
                  <input type="hidden" name="_method" value="DELETE" />
                  <button type="submit" class="btn btn-ghost btn-sm" aria-label={`Remove access for ${s.displayName || s.email}`}>
                    Remove
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
        <AddPersonForm
          action={base}
          target="#shares-panel"
          id="share-email"
          label="Share with"
          button="Share"
          error={error}
          email={email}
        />
      </div>
    </section>
  );
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
                  {link.url}
                  <Icon name="external" class="size-4 shrink-0 mt-0.5" />
                </a>
              ) : (
                <p class="wrap-anywhere">{link.url}</p>
              )}
            </div>
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
        canManage={caps.canManageShares}
        error={p.ownersError}
        notice={p.ownersNotice}
        email={p.ownersEmail}
      />
      {p.shares && <SharesPanel linkId={link.id} shares={p.shares} error={p.sharesError} notice={p.sharesNotice} email={p.sharesEmail} />}
      <HistorySection {...p.history} />
    </div>
  );
}

/** The confirm-delete dialog of docs/web-ui.md#confirm-delete-dialogs, for a link or a keyword. */
export function ConfirmDelete({
  name,
  action,
  target,
  asModal,
  cancelHref,
}: {
  name: string;
  action: string;
  target: string;
  asModal: boolean;
  cancelHref: string;
}) {
  const body = (
    <>
      <p class="break-words">This action cannot be undone.</p>
      <div class="modal-action">
        {asModal ? (
          <button type="button" class="btn btn-ghost" data-modal-close autofocus>
            Cancel
          </button>
        ) : (
          <a class="btn btn-ghost" href={cancelHref}>
            Cancel
          </a>
        )}
        <form
          method="post"
          action={action}
          hx-delete={asModal ? action : undefined}
          hx-target={asModal ? target : undefined}
          hx-swap={asModal ? 'outerHTML' : undefined}
          data-close-modal-on-success
        >
          <input type="hidden" name="_method" value="DELETE" />
          <button type="submit" class="btn btn-error">
            <Spinner />
            Delete
          </button>
        </form>
      </div>
    </>
  );
  const title = `Delete '${name}'?`;
  return asModal ? <Modal title={title}>{body}</Modal> : <Panel title={title}>{body}</Panel>;
}
