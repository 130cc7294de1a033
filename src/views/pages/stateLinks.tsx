import { asset } from '../assets.js';

/** Where unknown, expired and malformed `/s/` links land (docs/state-links.md). */
export function LinkMissing() {
  return (
    <section class="hero py-16" aria-labelledby="error-title">
      <div class="hero-content text-center flex-col max-w-xl">
        <p class="text-6xl font-black opacity-60">404</p>
        <h1 id="error-title" class="text-2xl font-bold">
          This link is gone
        </h1>
        <p>
          The short link you followed does not exist or has expired. Links that nobody opens expire after a while; ask whoever shared it for
          a fresh one.
        </p>
        <a class="btn btn-ghost" href="/">
          Go home
        </a>
      </div>
    </section>
  );
}

/**
 * The demo app of docs/state-links.md: its state lives in the URL fragment, and
 * the script (no inline code: the CSP forbids it) shortens it through
 * `POST /api/links`. The prefix travels in a data attribute so the script
 * follows PAYLOAD_PREFIX.
 */
export function StateDemo({ prefix }: { prefix: string }) {
  return (
    <section class="max-w-2xl space-y-6" aria-labelledby="state-title" data-state-demo data-prefix={prefix}>
      <div class="space-y-2">
        <h1 id="state-title" class="text-2xl font-bold">
          App-state short links
        </h1>
        <p>
          This small app keeps its whole state in the address bar, after <code class="font-mono">{prefix}</code>. Change the note or the
          counter, then shorten the address: the short link brings the same state back. A link nobody opens expires; once opened, it stays.
        </p>
      </div>
      <div class="card bg-base-200">
        <div class="card-body space-y-4">
          <label class="form-control w-full" for="state-note">
            <span class="label-text font-semibold">Note</span>
            <textarea id="state-note" class="textarea textarea-bordered w-full" rows={4} maxLength={2000} data-state-note></textarea>
          </label>
          <div class="flex items-center gap-3" role="group" aria-label="Counter">
            <button type="button" class="btn btn-sm btn-square" data-state-dec aria-label="Decrease counter">
              −
            </button>
            <output id="state-count" class="font-mono text-xl min-w-12 text-center" aria-live="polite" data-state-count>
              0
            </output>
            <button type="button" class="btn btn-sm btn-square" data-state-inc aria-label="Increase counter">
              +
            </button>
          </div>
          <div>
            <button type="button" class="btn btn-primary" data-state-shorten>
              Shorten link
            </button>
          </div>
          <p class="hidden" data-state-result>
            Short link: <a class="link link-primary font-mono wrap-anywhere" href="#" data-state-link></a>
          </p>
          <p class="error-text hidden" role="alert" data-state-error></p>
        </div>
      </div>
      <noscript>
        <p>This demo needs JavaScript.</p>
      </noscript>
      <script src={asset('js/state-demo.js')} defer></script>
    </section>
  );
}
