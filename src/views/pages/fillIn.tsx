import { PLACEHOLDER } from '../../domain/url.js';

/** One variable of a template: its name (without `$`) and what was given for it, '' if nothing. */
export interface FillInVariable {
  name: string;
  value: string;
}

export interface FillInProps {
  shortKeyword: string;
  /** The name the link was opened by, its slug or an alias. */
  name: string;
  /** The destination pattern as stored, `$variables` and all. */
  template: string;
  variables: readonly FillInVariable[];
  /** Query parameters a forwarding link passes on, carried through the form unchanged. */
  carried: ReadonlyArray<readonly [string, string]>;
}

const article = (word: string): string => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

/** "a ticket", "an org and a repo", "a, b and a c": what the heading says is missing. */
export function neededPhrase(names: readonly string[]): string {
  const words = names.map(article);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * The answer to the form's own submission (docs/links.md#fill-in-page): the response's `Refresh`
 * header moves on to the destination at once; the link is there for a browser that does not.
 */
export function FillInHandoff({ location }: { location: string }) {
  return (
    <section class="mx-auto w-full max-w-xl py-8 space-y-4" aria-labelledby="handoff-title">
      <h1 id="handoff-title" class="text-2xl font-bold">
        Opening the link…
      </h1>
      <p>
        <a class="link link-primary font-mono wrap-anywhere" href={location} rel="noreferrer">
          {location}
        </a>
      </p>
    </section>
  );
}

/** The destination pattern with its variables set in bold, so the reader sees where each value goes. */
function Pattern({ template }: { template: string }) {
  const parts: Array<string | { variable: string }> = [];
  let at = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (m.index > at) parts.push(template.slice(at, m.index));
    parts.push({ variable: m[0] });
    at = m.index + m[0].length;
  }
  if (at < template.length) parts.push(template.slice(at));
  return (
    <code class="block font-mono text-sm wrap-anywhere bg-base-200 rounded-box p-3">
      {parts.map((p) => (typeof p === 'string' ? p : <strong class="font-bold underline">{p.variable}</strong>))}
    </code>
  );
}

/**
 * A template opened without all of its values (docs/links.md#fill-in-page): one field per
 * variable, named after it, pre-filled with what was given; a plain GET form to the link's
 * own name, so it works without JavaScript and the resolver fills the values by name.
 */
export function FillIn({ shortKeyword, name, template, variables, carried }: FillInProps) {
  const missing = variables.filter((v) => v.value === '').map((v) => v.name);
  const firstEmpty = variables.findIndex((v) => v.value === '');
  const example = `${shortKeyword}/${name}/${variables.map((v) => `<${v.name}>`).join('/')}`;
  const byName = `${shortKeyword}/${name}?${variables.map((v) => `${v.name}=…`).join('&')}`;
  return (
    <section class="mx-auto w-full max-w-xl py-8 space-y-6" aria-labelledby="fill-in-title">
      <header class="space-y-3">
        <h1 id="fill-in-title" class="text-2xl font-bold break-words">
          <span class="font-mono">{`${shortKeyword}/${name}`}</span>
          {` needs ${neededPhrase(missing)}`}
        </h1>
        <p>It opens this address with what you type in place of each variable:</p>
        <Pattern template={template} />
      </header>
      <form method="get" action={`/${name}`} class="card bg-base-100 border border-base-300" data-fill-in>
        <div class="card-body gap-4">
          {carried.map(([k, v]) => (
            <input type="hidden" name={k} value={v} />
          ))}
          {variables.map((v, i) => (
            <div class="space-y-1">
              <label for={`fill-in-${v.name}`} class="block text-sm font-medium font-mono">
                {v.name}
              </label>
              <input
                id={`fill-in-${v.name}`}
                name={v.name}
                type="text"
                value={v.value}
                required
                autocomplete="off"
                autocapitalize="none"
                spellcheck={false}
                autofocus={i === firstEmpty}
                class="input w-full font-mono"
                aria-describedby="fill-in-example"
              />
            </div>
          ))}
          <div class="flex justify-end">
            <button type="submit" class="btn btn-primary">
              Go
            </button>
          </div>
        </div>
      </form>
      <p id="fill-in-example" class="text-sm text-base-content/80 break-words">
        {'Next time, type '}
        <code class="font-mono">{example}</code>
        {' or '}
        <code class="font-mono">{byName}</code>
        {' to go straight there.'}
      </p>
    </section>
  );
}
