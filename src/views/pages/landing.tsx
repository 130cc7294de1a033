export function Landing({ shortKeyword }: { shortKeyword: string }) {
  return (
    <section class="hero py-16">
      <div class="hero-content text-center flex-col max-w-2xl">
        <h1 class="text-4xl md:text-5xl font-black">Short links your team remembers</h1>
        <p class="text-lg">
          Type <code class="kbd">{shortKeyword}/slack</code> in your browser and land where you meant to go. Links have owners,
          tags, templates like <code class="font-mono">{shortKeyword}/jira/ABC-123</code>, and private or secure visibility.
        </p>
        <div class="flex gap-3">
          <a class="btn btn-primary" href="/auth/login">Sign in</a>
          <a class="btn btn-ghost" href="/links">Browse public links</a>
        </div>
      </div>
    </section>
  );
}
