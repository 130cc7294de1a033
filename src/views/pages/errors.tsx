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
    <section class="hero py-16" aria-labelledby="error-title">
      <div class="hero-content text-center flex-col max-w-xl">
        <p class="text-6xl font-black opacity-60">404</p>
        <h1 id="error-title" class="text-2xl font-bold break-all">
          Link not found: {slug}
        </h1>
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
      </div>
    </section>
  );
}

export function PlainNotFound({ message }: { message?: string }) {
  return (
    <section class="hero py-16" aria-labelledby="error-title">
      <div class="hero-content text-center flex-col">
        <p class="text-6xl font-black opacity-60">404</p>
        <h1 id="error-title" class="text-2xl font-bold">
          Page not found
        </h1>
        <p>{message ?? "We couldn't find what you were looking for."}</p>
        <a class="btn btn-ghost" href="/">
          Go home
        </a>
      </div>
    </section>
  );
}

/** Input the server refuses outright (a NUL character in a query or form, say); nothing was changed. */
export function BadRequest({ message }: { message: string }) {
  return (
    <section class="hero py-16" aria-labelledby="error-title">
      <div class="hero-content text-center flex-col">
        <p class="text-6xl font-black opacity-60">400</p>
        <h1 id="error-title" class="text-2xl font-bold">
          Bad request
        </h1>
        <p class="break-words">{message}</p>
        <p class="text-sm opacity-80">Nothing was changed.</p>
        <a class="btn btn-ghost" href="/">
          Go home
        </a>
      </div>
    </section>
  );
}

/** Over a request budget (the CSV export's, say); `Retry-After` carries the wait for programs. */
export function TooManyRequests({ message }: { message: string }) {
  return (
    <section class="hero py-16" aria-labelledby="error-title">
      <div class="hero-content text-center flex-col">
        <p class="text-6xl font-black opacity-60">429</p>
        <h1 id="error-title" class="text-2xl font-bold">
          Too many requests
        </h1>
        <p class="break-words">{message}</p>
        <p class="text-sm opacity-80">Wait a moment, then try again.</p>
        <a class="btn btn-ghost" href="/dashboard">
          Go to dashboard
        </a>
      </div>
    </section>
  );
}

export function Forbidden() {
  return (
    <section class="hero py-16" aria-labelledby="error-title">
      <div class="hero-content text-center flex-col">
        <p class="text-6xl font-black opacity-60">403</p>
        <h1 id="error-title" class="text-2xl font-bold">
          Access denied
        </h1>
        <p>You don't have permission to access this page.</p>
        <p class="text-sm opacity-80">If access was granted to you recently, signing out and in again may help.</p>
        <a class="btn btn-primary" href="/dashboard">
          Go to dashboard
        </a>
      </div>
    </section>
  );
}

export function Unavailable({ message }: { message?: string }) {
  return (
    <section class="hero py-16" aria-labelledby="error-title">
      <div class="hero-content text-center flex-col">
        <p class="text-6xl font-black opacity-60">503</p>
        <h1 id="error-title" class="text-2xl font-bold">
          Temporarily unavailable
        </h1>
        <p>{message ?? 'joe-links cannot reach its database right now. Please try again in a moment.'}</p>
      </div>
    </section>
  );
}

export function ServerError() {
  return (
    <section class="hero py-16" aria-labelledby="error-title">
      <div class="hero-content text-center flex-col">
        <p class="text-6xl font-black opacity-60">500</p>
        <h1 id="error-title" class="text-2xl font-bold">
          Something went wrong
        </h1>
        <p>The error has been logged. Please try again.</p>
      </div>
    </section>
  );
}
