import type { ComponentChildren } from 'preact';

export interface NotFoundProps {
  /** The slug (first path segment) that missed, as typed. */
  slug: string;
  shortKeyword: string;
  suggestions: readonly string[];
  /** The slug to offer creating, or null when no create offer applies. */
  createSlug: string | null;
  signedIn: boolean;
}

/** The resolver's 404 (docs/web-ui.md#error-pages): did-you-mean, then the create offer. */
export function NotFound({ slug, shortKeyword, suggestions, createSlug, signedIn }: NotFoundProps) {
  const newPath = createSlug ? `/dashboard/links/new?slug=${encodeURIComponent(createSlug)}` : '';
  return (
    <ErrorHero status={404} title={<>Link not found: {slug}</>} wide>
      <p>There's no short link for {slug} yet.</p>
      {suggestions.length > 0 && (
        <div class="card bg-base-200 w-full">
          <div class="card-body">
            <h2 class="card-title text-base">Did you mean…</h2>
            <ul class="space-y-1">
              {suggestions.map((s) => (
                <li>
                  <a class="link link-primary font-mono" href={`/${s}`}>{`${shortKeyword}/${s}`}</a>
                </li>
              ))}
            </ul>
          </div>
        </div>
      )}
      {createSlug &&
        (signedIn ? (
          <a class="btn btn-primary" href={newPath}>
            Create this link
          </a>
        ) : (
          <a class="btn btn-primary" href={`/auth/login?return_url=${encodeURIComponent(newPath)}`}>
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
    <section class="hero py-16" aria-labelledby="error-title">
      <div class={`hero-content text-center flex-col${wide ? ' max-w-xl' : ''}`}>
        <p class="text-6xl font-black opacity-60">{status}</p>
        <h1 id="error-title" class={`text-2xl font-bold${wide ? ' break-all' : ''}`}>
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

export function PlainNotFound({ message }: { message?: string }) {
  return (
    <ErrorHero status={404} title="Page not found">
      <p>{message ?? "We couldn't find what you were looking for."}</p>
      <GoHome />
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

export function Forbidden() {
  return (
    <ErrorHero status={403} title="Access denied">
      <p>You don't have permission to access this page.</p>
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
