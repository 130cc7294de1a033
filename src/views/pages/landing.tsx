import { Icon, type IconName } from '../partials/icons.js';

function Feature({ icon, title, children }: { icon: IconName; title: string; children: string }) {
  return (
    <div class="card bg-base-200">
      <div class="card-body gap-2">
        <span class="rounded-field bg-base-100 p-2 w-fit">
          <Icon name={icon} class="size-5" />
        </span>
        <h2 class="font-semibold">{title}</h2>
        <p class="text-sm text-base-content/80">{children}</p>
      </div>
    </div>
  );
}

/** `GET /` for anonymous visitors (docs/web-ui.md#landing-and-dashboard). */
export function Landing({ shortKeyword }: { shortKeyword: string }) {
  return (
    <div class="space-y-12 py-8 md:py-16">
      <section class="text-center space-y-6 max-w-2xl mx-auto" aria-labelledby="hero-title">
        <h1 id="hero-title" class="text-5xl md:text-6xl font-black tracking-tight">
          Joe Links
        </h1>
        <p class="text-lg md:text-xl text-base-content/80">
          Short links your team remembers. Type <kbd class="kbd">{`${shortKeyword}/slack`}</kbd> in the address bar and land where you meant
          to go.
        </p>
        <div class="flex flex-wrap justify-center gap-3">
          <a class="btn btn-primary btn-lg" href="/auth/login">
            Sign in to get started
          </a>
          <a class="btn btn-ghost btn-lg" href="/links">
            Browse public links
          </a>
        </div>
      </section>
      <section class="grid gap-4 md:grid-cols-3" aria-label="Features">
        <Feature icon="link" title="Memorable slugs">
          Give any long URL a short name. Owners and co-owners keep it current, so the link never rots.
        </Feature>
        <Feature icon="terminal" title="Templates">
          {`Variables turn ${shortKeyword}/jira/ABC-123 into the right ticket, and keywords forward whole namespaces.`}
        </Feature>
        <Feature icon="shield" title="Private and secure links">
          Keep a link out of the public list, or let only the people you share it with follow it.
        </Feature>
      </section>
    </div>
  );
}
