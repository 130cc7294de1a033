import type { Keyword } from '../../store/types.js';
import { Icon } from '../partials/icons.js';
import { Alert, EmptyState, PageHeader, Spinner } from '../partials/ui.js';
import { BreakableUrl } from '../partials/breakable.js';

/** The keyword templates admin page of docs/web-ui.md#admin-screens (docs/links.md#keywords). */

export interface KeywordFormState {
  values: { keyword: string; urlTemplate: string; description: string };
  error: string | null;
}

export function KeywordRow({ k }: { k: Keyword }) {
  const base = `/admin/keywords/${k.id}`;
  return (
    <tr id={`keyword-${k.id}`} class="hover:bg-base-200/60">
      <td class="font-mono font-semibold">{k.keyword}</td>
      <td class="font-mono text-sm wrap-anywhere">
        <BreakableUrl url={k.urlTemplate} />
      </td>
      <td class="hidden md:table-cell">{k.description}</td>
      <td class="text-right">
        <a
          href={`${base}/confirm-delete`}
          hx-get={`${base}/confirm-delete`}
          hx-target="#modal"
          class="btn btn-ghost btn-xs btn-square tooltip tooltip-left"
          data-tip="Delete"
          aria-label={`Delete ${k.keyword}`}
        >
          <Icon name="trash" class="size-4" />
        </a>
      </td>
    </tr>
  );
}

export function KeywordsSection({ keywords, form }: { keywords: readonly Keyword[]; form: KeywordFormState }) {
  const v = form.values;
  return (
    <div id="keywords-section" class="space-y-6">
      <section class="card bg-base-100 border border-base-300" aria-labelledby="new-keyword-title">
        <div class="card-body gap-3">
          <h2 id="new-keyword-title" class="card-title text-base">
            New keyword
          </h2>
          <p class="text-sm text-base-content/70">
            A keyword forwards <code class="font-mono">keyword/anything</code> to its template with{' '}
            <code class="font-mono">{'{slug}'}</code> replaced.
          </p>
          {form.error && <Alert>{form.error}</Alert>}
          <form
            method="post"
            action="/admin/keywords"
            hx-post="/admin/keywords"
            hx-target="#keywords-section"
            hx-swap="outerHTML"
            class="grid gap-3 md:grid-cols-[1fr_2fr_2fr_auto] items-end"
          >
            <div>
              <label for="kw-keyword" class="block text-sm font-medium mb-1">
                Keyword
              </label>
              <input
                id="kw-keyword"
                name="keyword"
                type="text"
                value={v.keyword}
                class="input w-full font-mono"
                placeholder="jira"
                autocomplete="off"
              />
            </div>
            <div>
              <label for="kw-template" class="block text-sm font-medium mb-1">
                URL template
              </label>
              <input
                id="kw-template"
                name="url_template"
                type="text"
                value={v.urlTemplate}
                class="input w-full font-mono"
                placeholder="https://jira.example.com/browse/{slug}"
                autocomplete="off"
                aria-describedby="kw-template-hint"
              />
              <p id="kw-template-hint" class="text-xs text-base-content/70 mt-1">
                URL template must contain {'{slug}'}
              </p>
            </div>
            <div>
              <label for="kw-description" class="block text-sm font-medium mb-1">
                Description
              </label>
              <input id="kw-description" name="description" type="text" value={v.description} class="input w-full" autocomplete="off" />
            </div>
            <button type="submit" class="btn btn-primary md:mb-5">
              <Spinner />
              Add keyword
            </button>
          </form>
        </div>
      </section>
      {keywords.length === 0 ? (
        <EmptyState icon="terminal" title="No keywords configured." />
      ) : (
        <div class="overflow-x-auto rounded-box border border-base-300 bg-base-100">
          {/* Fixed columns: the template breaks at its `/`s within the room it is given, where an
              automatic table would shrink its column until it broke inside its words. */}
          <table class="table table-sm md:table-md table-fixed">
            <thead>
              <tr>
                <th scope="col" class="w-28 md:w-40">
                  Keyword
                </th>
                <th scope="col">URL Template</th>
                <th scope="col" class="hidden md:table-cell">
                  Description
                </th>
                <th scope="col" class="w-12 text-right md:w-16">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keywords.map((k) => (
                <KeywordRow k={k} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export function KeywordsPage(props: { keywords: readonly Keyword[]; form: KeywordFormState }) {
  return (
    <>
      <PageHeader title="Keyword Templates" subtitle="Root-forward keywords, effective immediately." />
      <KeywordsSection {...props} />
    </>
  );
}
