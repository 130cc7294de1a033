/**
 * Long text with sensible line-break points (docs/web-ui.md#rendering-conventions). Browsers
 * break a URL nowhere but where it runs out of room (`$ti` / `cket`); a `<wbr>` after each `/`
 * and `=` and before each `?`, `&` and `#` lets it break between its parts, and `wrap-anywhere` (URLs
 * only) breaks a part only when that part alone is wider than its box.
 */

const URL_BREAKS = /(?<=[^:/]\/)(?!\/)|(?=[?&#])|(?<==)/;

export function BreakableUrl({ url }: { url: string }) {
  const parts = url.split(URL_BREAKS);
  return (
    <>
      {parts.map((part, i) => (
        <>
          {i > 0 && <wbr />}
          {part}
        </>
      ))}
    </>
  );
}

/** A slug, which may hold `/` between its names: a line may break after each `/` and at its hyphens, never inside a word. */
export function BreakableSlug({ slug }: { slug: string }) {
  return <BreakableUrl url={slug} />;
}
