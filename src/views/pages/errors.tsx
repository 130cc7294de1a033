import type { Suggestion } from '../../store/discovery.js';
import type { ComponentChildren } from 'preact';

export interface NotFoundProps {
  /** The slug (first path segment) that missed, as typed. */
  slug: string;
  shortKeyword: string;
  /** Near misses the viewer may discover, nearest first. */
  suggestions: readonly Suggestion[];
  /** The slug to offer creating, or null when no create offer applies. */
  createSlug: string | null;
  signedIn: boolean;
  /** Said instead of "nobody has made it": the name is held by a link that leads nowhere now. */
  held?: boolean;
}

/** `go/slack — Acme Slack`, or just the short link when it has no title. */
const named = (shortKeyword: string, s: Suggestion) => `${shortKeyword}/${s.slug}${s.title ? ` — ${s.title}` : ''}`;

/**
 * The resolver's 404 (docs/web-ui.md#error-pages). The nearest suggestion is the page's one
 * primary action, focused, so Enter follows it; other near misses are listed under it; the
 * create offer comes after, as the lesser choice when there is a suggestion.
 */
export function NotFound({ slug, shortKeyword, suggestions, createSlug, signedIn, held = false }: NotFoundProps) {
  const newPath = createSlug ? `/dashboard/links/new?slug=${encodeURIComponent(createSlug)}` : '';
  const [best, ...others] = suggestions;
  const createClass = best ? 'btn btn-ghost' : 'btn btn-primary';
  return (
    <ErrorHero status={404} title={<>Link not found: {slug}</>} wide>
      <p class="break-words">
        {held
          ? `${shortKeyword}/${slug} does not lead anywhere right now. The name is taken, so it cannot be created again.`
          : `Nobody has made ${shortKeyword}/${slug}.`}
      </p>
      {best && (
        <div class="w-full space-y-3">
          <h2 class="text-base font-semibold">Did you mean…</h2>
          {/* The one focused action: Enter follows it. */}
          <a class="btn btn-primary h-auto min-h-10 py-2 max-w-full whitespace-normal break-words" href={`/${best.slug}`} autofocus>
            {`Open ${named(shortKeyword, best)}`}
          </a>
          {others.length > 0 && (
            <ul class="space-y-1">
              {others.map((s) => (
                <li>
                  <a class="link link-brand break-words" href={`/${s.slug}`}>
                    {named(shortKeyword, s)}
                  </a>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {createSlug &&
        (signedIn ? (
          <a class={createClass} href={newPath}>
            {`Create ${shortKeyword}/${createSlug}`}
          </a>
        ) : (
          <a class={createClass} href={`/auth/login?return_url=${encodeURIComponent(newPath)}`}>
            Sign in to create this link
          </a>
        ))}
    </ErrorHero>
  );
}

/**
 * The one shape of every error page: the status large, the title as the page's heading, then
 * what to say and where to go. `wide` gives room to long slugs and suggestions.
 */
export function ErrorHero({
  status,
  title,
  wide = false,
  children,
}: {
  status: number;
  title: ComponentChildren;
  wide?: boolean;
  children?: ComponentChildren;
}) {
  return (
    <section class="hero error-hero py-16" aria-labelledby="error-title">
      <div class={`hero-content text-center flex-col${wide ? ' max-w-xl' : ''}`}>
        <p class="text-6xl font-black opacity-60">{status}</p>
        <h1 id="error-title" class={`text-2xl font-bold${wide ? ' wrap-anywhere' : ''}`}>
          {title}
        </h1>
        {children}
      </div>
    </section>
  );
}

const GoHome = () => (
  <a class="btn btn-ghost" href="/">
    Go home
  </a>
);

/** A 404 of the app's own pages; `back` names the way on (the admin overview, the dashboard) instead of home. */
export function PlainNotFound({ message, back }: { message?: string; back?: { href: string; label: string } }) {
  return (
    <ErrorHero status={404} title="Page not found">
      <p>{message ?? "We couldn't find what you were looking for."}</p>
      {back ? (
        <a class="btn btn-primary" href={back.href}>
          {back.label}
        </a>
      ) : (
        <GoHome />
      )}
    </ErrorHero>
  );
}

/** Input the server refuses outright (a NUL character in a query or form, say); nothing was changed. */
export function BadRequest({ message }: { message: string }) {
  return (
    <ErrorHero status={400} title="Bad request">
      <p class="break-words">{message}</p>
      <p class="text-sm opacity-80">Nothing was changed.</p>
      <GoHome />
    </ErrorHero>
  );
}

/** Over a request budget (the CSV export's, say); `Retry-After` carries the wait for programs. */
export function TooManyRequests({ message }: { message: string }) {
  return (
    <ErrorHero status={429} title="Too many requests">
      <p class="break-words">{message}</p>
      <p class="text-sm opacity-80">Wait a moment, then try again.</p>
      <a class="btn btn-ghost" href="/dashboard">
        Go to dashboard
      </a>
    </ErrorHero>
  );
}

/**
 * The 403 page. For a secure link's page, `owner` is its primary owner, named (display name, else
 * email) so the viewer knows whom to ask; nothing else of the link is said.
 */
export function Forbidden({ owner }: { owner?: { displayName: string; email: string } | null } = {}) {
  return (
    <ErrorHero status={403} title="Access denied">
      <p>You don't have permission to access this page.</p>
      {owner && (
        <p class="break-words" data-ask-access>
          {`Only its owners and the people they share it with can open this secure link. To ask for access, contact its owner, ${owner.displayName || owner.email}.`}
        </p>
      )}
      <p class="text-sm opacity-80">If access was granted to you recently, signing out and in again may help.</p>
      <a class="btn btn-primary" href="/dashboard">
        Go to dashboard
      </a>
    </ErrorHero>
  );
}

export function Unavailable({ message }: { message?: string }) {
  return (
    <ErrorHero status={503} title="Temporarily unavailable">
      <p>{message ?? 'joe-links cannot reach its database right now. Please try again in a moment.'}</p>
    </ErrorHero>
  );
}

export function ServerError() {
  return (
    <ErrorHero status={500} title="Something went wrong">
      <p>The error has been logged. Please try again.</p>
    </ErrorHero>
  );
}
