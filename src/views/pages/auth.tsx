import type { ComponentChildren } from 'preact';

/** Pages of the sign-in flows (docs/auth.md#sign-in-modes). */

function Panel({ code, title, children }: { code?: string; title: string; children: ComponentChildren }) {
  return (
    <section class="hero py-16" aria-labelledby="auth-title">
      <div class="hero-content text-center flex-col max-w-xl">
        {code && <p class="text-6xl font-black opacity-60">{code}</p>}
        <h1 id="auth-title" class="text-2xl font-bold">
          {title}
        </h1>
        {children}
      </div>
    </section>
  );
}

/** OIDC discovery has not succeeded yet (docs/auth.md#sign-in-modes). */
export function SignInUnavailable() {
  return (
    <Panel code="503" title="Sign-in is temporarily unavailable">
      <p>joe-links cannot reach its identity provider right now. It keeps trying; please try again in a minute.</p>
      <a class="btn btn-ghost" href="/">
        Go home
      </a>
    </Panel>
  );
}

/** A failed OIDC callback: the reason is shown, the details are in the server log. */
export function SignInFailed({ status, message }: { status: number; message: string }) {
  return (
    <Panel code={String(status)} title="Sign-in failed">
      <p>{message}</p>
      <a class="btn btn-primary" href="/auth/login">
        Try again
      </a>
    </Panel>
  );
}

/** Local mode: nobody types a password here; an administrator hands out links. */
export function LocalModeSignIn() {
  return (
    <Panel title="Sign in to joe-links">
      <p>This server signs people in with one-time sign-in links. Ask an administrator for one; they can print it with</p>
      {/* Wraps between words on a phone instead of widening the page. */}
      <pre class="bg-base-200 rounded-box p-3 text-left whitespace-pre-wrap break-words">
        <code>joe-links login-url --email you@example.com</code>
      </pre>
      <p class="text-sm opacity-80">A link is valid for 15 minutes and works once.</p>
    </Panel>
  );
}

/** Forward-auth mode: the authenticating proxy in front of joe-links does the sign-in. */
export function ProxyModeSignIn() {
  return (
    <Panel title="Sign in to joe-links">
      <p>
        Sign-in happens at the authenticating proxy in front of joe-links. If you are seeing this page, your request did not arrive through
        it; open joe-links through your organisation's usual address and sign in there.
      </p>
    </Panel>
  );
}

/**
 * The landing page of a one-time sign-in link. Fetching it uses nothing up
 * (previewers and mail scanners fetch links); only the button does.
 */
export function LocalSignInConfirm({ email, token }: { email: string; token: string }) {
  return (
    <Panel title={`Sign in to joe-links as ${email}`}>
      <p>This one-time link signs you in on this browser.</p>
      <form method="post" action="/auth/local">
        <input type="hidden" name="token" value={token} />
        <button type="submit" class="btn btn-primary">
          Sign in
        </button>
      </form>
    </Panel>
  );
}

export function LocalSignInInvalid() {
  return (
    <Panel code="400" title="This sign-in link is invalid or has expired">
      <p>Sign-in links work once and for 15 minutes. Ask an administrator for a new one.</p>
      <a class="btn btn-ghost" href="/">
        Go home
      </a>
    </Panel>
  );
}

/** `GET /auth/logout` signs nobody out (a prefetch or an image tag could trigger it); it offers the button. */
export function SignOutConfirm() {
  return (
    <Panel title="Sign out of joe-links?">
      <form method="post" action="/auth/logout">
        <button type="submit" class="btn btn-primary">
          Sign out
        </button>
      </form>
    </Panel>
  );
}

/** A state-changing request that another site made with this browser's cookies (docs/auth.md#cross-site-checks). */
export function CrossSiteRefused() {
  return (
    <Panel code="403" title="Request refused">
      <p>This request came from another site, so joe-links did not act on it. Nothing was changed.</p>
      <a class="btn btn-primary" href="/dashboard">
        Go to dashboard
      </a>
    </Panel>
  );
}
