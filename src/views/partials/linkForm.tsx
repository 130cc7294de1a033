import type { ComponentChildren } from 'preact';
import { MAX_ALIASES_PER_LINK } from '../../domain/aliases.js';
import { DESCRIPTION_MAX, TITLE_MAX } from '../../domain/linkInput.js';
import { SLUG_MAX_LENGTH } from '../../domain/slug.js';
import { Alert, FieldError, Spinner } from './ui.js';
import { SlugFix } from './slugCheck.js';

/**
 * The create / edit link form (docs/web-ui.md#link-forms), the same fields on its page and in
 * its dialog; a failed save renders it again with each message beside its field.
 */

/** What the form shows: stored values on edit, the submitted ones after an error. */
export interface LinkFormValues {
  slug: string;
  url: string;
  /** docs/links.md#default-destination; '' for none. */
  defaultUrl: string;
  title: string;
  description: string;
  visibility: string;
  /** As the datetime-local input holds it (`YYYY-MM-DDTHH:MM:SS`, UTC), or ''. */
  expiresAt: string;
  healthChecksDisabled: boolean;
  tags: string;
  /** Comma- or space-separated (docs/links.md#aliases). */
  aliases: string;
  forwardPathAndQuery: boolean;
  /** The version the edit form was opened at (docs/api.md#conditional-requests); '' on create. */
  version: string;
}

export const EMPTY_LINK_FORM: LinkFormValues = {
  slug: '',
  url: '',
  defaultUrl: '',
  title: '',
  description: '',
  visibility: 'public',
  expiresAt: '',
  healthChecksDisabled: false,
  tags: '',
  aliases: '',
  forwardPathAndQuery: false,
  version: '',
};

/** A failed save: `field` places the message beside its input; null shows it above the form. */
export interface FormError {
  field: string | null;
  message: string;
  /** A slug the person probably meant, offered as a one-click fix (docs/links.md#slug-suggestions). */
  suggestion?: string | null;
  /** Where the link that already holds the typed slug goes (`/slug`): "open it". */
  open?: string | null;
  /** The edit form at the link's current version, when it changed since this form was opened. */
  reload?: string;
}

export interface LinkFormProps {
  mode: 'create' | 'edit';
  values: LinkFormValues;
  linkId?: string;
  error?: FormError | null;
  shortKeyword: string;
  /** In the HTMX modal the form posts with HTMX; as a page it is a plain form. */
  asModal: boolean;
}

const VISIBILITY_OPTIONS: Array<[string, string]> = [
  ['public', 'Public — anyone can access'],
  ['private', 'Private — hidden from browsing'],
  ['internal', 'Internal — anyone signed in, hidden from browsing'],
  ['secure', 'Secure — requires login + grant'],
];

function errFor(error: FormError | null | undefined, field: string): string | undefined {
  return error && error.field === field ? error.message : undefined;
}

function Field({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  error?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="space-y-1">
      <label for={id} class="block text-sm font-medium">
        {label}
      </label>
      {children}
      {hint && !error && (
        <p id={`${id}-hint`} class="text-xs text-base-content/70">
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

const described = (id: string, error: string | undefined, hint: boolean) => (error ? `${id}-error` : hint ? `${id}-hint` : undefined);

export function LinkForm({ mode, values, linkId, error, shortKeyword, asModal }: LinkFormProps) {
  const create = mode === 'create';
  const action = create ? '/dashboard/links' : `/dashboard/links/${linkId}`;
  const hx = asModal
    ? create
      ? { 'hx-post': action, 'hx-target': 'this', 'hx-swap': 'outerHTML' }
      : { 'hx-put': action, 'hx-target': 'this', 'hx-swap': 'outerHTML' }
    : {};
  const slugErr = errFor(error, 'slug');
  const urlErr = errFor(error, 'url');
  const defaultErr = errFor(error, 'default_url');
  const titleErr = errFor(error, 'title');
  const descErr = errFor(error, 'description');
  const visErr = errFor(error, 'visibility');
  const expErr = errFor(error, 'expires_at');
  const tagErr = errFor(error, 'tags');
  const aliasErr = errFor(error, 'aliases');
  const general = error && error.field === null ? error.message : undefined;
  return (
    <form method="post" action={action} class="space-y-4" data-link-form {...hx} hx-disabled-elt="find button[type=submit]" novalidate>
      {!create && <input type="hidden" name="_method" value="PUT" />}
      {!create && values.version !== '' && <input type="hidden" name="version" value={values.version} />}
      {general && (
        <Alert>
          {general}
          {error?.reload && (
            <>
              {' '}
              <a class="link" href={error.reload}>
                Open the current version
              </a>
            </>
          )}
        </Alert>
      )}
      <Field
        id="link-slug"
        label="Slug"
        error={slugErr}
        hint={create ? 'Lowercase letters, digits and hyphens; "/" joins parts, as in blog/launch.' : 'The slug cannot be changed.'}
      >
        <div class={`input w-full font-mono${slugErr ? ' input-error' : ''}`}>
          <span class="text-base-content/70 select-none">{`${shortKeyword}/`}</span>
          {create ? (
            <input
              id="link-slug"
              name="slug"
              type="text"
              value={values.slug}
              required
              maxLength={SLUG_MAX_LENGTH}
              autocomplete="off"
              autocapitalize="none"
              spellcheck={false}
              autofocus
              aria-invalid={slugErr ? 'true' : undefined}
              aria-describedby={described('link-slug', slugErr, true)}
              data-slug-input
              data-slug-source
              hx-get="/dashboard/links/validate-slug"
              hx-trigger="input changed delay:300ms"
              hx-target="#slug-check"
              hx-sync="this:replace"
            />
          ) : (
            <input id="link-slug" type="text" value={values.slug} disabled aria-describedby="link-slug-hint" data-slug-source />
          )}
        </div>
        {slugErr && error && <SlugFix suggestion={error.suggestion ?? null} open={error.open ?? null} />}
        {create && <div id="slug-check" class="text-sm min-h-5" aria-live="polite"></div>}
      </Field>

      <Field
        id="link-url"
        label="Destination URL"
        error={urlErr}
        hint="Use $name placeholders for variables, e.g. https://jira.example.com/browse/$ticket"
      >
        <input
          id="link-url"
          name="url"
          type="text"
          inputmode="url"
          value={values.url}
          required
          autocomplete="off"
          spellcheck={false}
          placeholder="https://example.com/page"
          class={`input w-full${urlErr ? ' input-error' : ''}`}
          aria-invalid={urlErr ? 'true' : undefined}
          aria-describedby={described('link-url', urlErr, true)}
          data-url-input
          autofocus={!create}
        />
      </Field>
      <div class="hidden rounded-box bg-base-200 p-3 text-sm space-y-1" data-var-hint data-keyword={shortKeyword} aria-live="polite">
        <p>
          Variables: <span class="font-mono" data-var-names></span>
        </p>
        <p>
          Use it as <code class="font-mono" data-var-example></code>
        </p>
      </div>
      <Field
        id="link-default-url"
        label="Destination when nothing is filled in"
        error={defaultErr}
        hint={`Optional, only for a destination with $name placeholders: where ${shortKeyword}/slug goes when no value is given, instead of asking for one.`}
      >
        <input
          id="link-default-url"
          name="default_url"
          type="text"
          inputmode="url"
          value={values.defaultUrl}
          autocomplete="off"
          spellcheck={false}
          placeholder="https://example.com"
          class={`input w-full${defaultErr ? ' input-error' : ''}`}
          aria-invalid={defaultErr ? 'true' : undefined}
          aria-describedby={described('link-default-url', defaultErr, true)}
        />
      </Field>

      <div class="grid gap-4 sm:grid-cols-2">
        <Field id="link-title" label="Title" error={titleErr}>
          <input
            id="link-title"
            name="title"
            type="text"
            value={values.title}
            maxLength={TITLE_MAX}
            class={`input w-full${titleErr ? ' input-error' : ''}`}
            aria-invalid={titleErr ? 'true' : undefined}
            aria-describedby={described('link-title', titleErr, false)}
          />
        </Field>
        <Field id="link-visibility" label="Visibility" error={visErr}>
          <select
            id="link-visibility"
            name="visibility"
            class={`select w-full${visErr ? ' select-error' : ''}`}
            aria-describedby={described('link-visibility', visErr, false)}
          >
            {VISIBILITY_OPTIONS.map(([value, label]) => (
              <option value={value} selected={values.visibility === value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
      </div>

      <Field id="link-description" label="Description" error={descErr}>
        <textarea
          id="link-description"
          name="description"
          rows={2}
          maxLength={DESCRIPTION_MAX}
          class={`textarea w-full${descErr ? ' textarea-error' : ''}`}
          aria-invalid={descErr ? 'true' : undefined}
          aria-describedby={described('link-description', descErr, false)}
        >
          {values.description}
        </textarea>
      </Field>

      <Field id="link-tags" label="Tags" error={tagErr} hint="Comma-separated, e.g. engineering, onboarding">
        <input
          id="link-tags"
          name="tags"
          type="text"
          value={values.tags}
          autocomplete="off"
          class={`input w-full${tagErr ? ' input-error' : ''}`}
          aria-invalid={tagErr ? 'true' : undefined}
          aria-describedby={described('link-tags', tagErr, true)}
          data-tag-input
          hx-get="/dashboard/tags/suggest"
          hx-trigger="input changed delay:200ms"
          hx-target="#tag-suggestions"
          hx-sync="this:replace"
        />
        <div id="tag-suggestions" class="flex flex-wrap gap-1" data-tag-suggestions aria-live="polite"></div>
      </Field>

      <Field
        id="link-aliases"
        label="Aliases"
        error={aliasErr}
        hint={`Up to ${MAX_ALIASES_PER_LINK} more names that lead to the same place, e.g. ${shortKeyword}/handbook. Comma-separated.`}
      >
        <input
          id="link-aliases"
          name="aliases"
          type="text"
          value={values.aliases}
          autocomplete="off"
          autocapitalize="none"
          spellcheck={false}
          class={`input w-full font-mono${aliasErr ? ' input-error' : ''}`}
          aria-invalid={aliasErr ? 'true' : undefined}
          aria-describedby={described('link-aliases', aliasErr, true)}
        />
      </Field>

      <div class="grid gap-4 sm:grid-cols-2 items-start">
        <Field id="link-expires" label="Expires (UTC)" error={expErr} hint="Optional. Leave empty and the link never expires.">
          <input
            id="link-expires"
            name="expires_at"
            type="datetime-local"
            step={1}
            value={values.expiresAt}
            class={`input w-full${expErr ? ' input-error' : ''}`}
            aria-invalid={expErr ? 'true' : undefined}
            aria-describedby={described('link-expires', expErr, true)}
          />
        </Field>
        <div class="sm:pt-7">
          <label class="flex items-center gap-2 cursor-pointer">
            <input
              type="checkbox"
              name="health_checks_disabled"
              value="true"
              class="checkbox checkbox-sm"
              checked={values.healthChecksDisabled}
            />
            <span class="text-sm">Skip destination health checks</span>
          </label>
        </div>
      </div>

      <label class="flex items-start gap-2 cursor-pointer">
        <input
          type="checkbox"
          name="forward_path_and_query"
          value="true"
          class="checkbox checkbox-sm mt-0.5"
          checked={values.forwardPathAndQuery}
          aria-describedby="link-forward-hint"
        />
        <span class="text-sm">
          Forward extra path and query
          <span id="link-forward-hint" class="block text-xs text-base-content/70">
            {`${shortKeyword}/slug/more?x=1 opens the destination followed by /more?x=1.`}
          </span>
        </span>
      </label>

      {/* In a dialog the actions stay in view while the fields scroll under them (app.css). */}
      <div class={asModal ? 'modal-action' : 'flex justify-end gap-2 pt-2'}>
        {asModal ? (
          <button type="button" class="btn btn-ghost" data-modal-close>
            Cancel
          </button>
        ) : (
          <a class="btn btn-ghost" href={create ? '/dashboard' : `/dashboard/links/${linkId}`}>
            Cancel
          </a>
        )}
        <button type="submit" class="btn btn-primary">
          <Spinner />
          {create ? 'Create link' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}
