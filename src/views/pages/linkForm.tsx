import { Modal, PageHeader } from '../partials/ui.js';
import { LinkForm, type LinkFormProps } from '../partials/linkForm.js';
import { BreakableUrl } from '../partials/breakable.js';

/** The create and edit link screens (docs/web-ui.md#link-forms): a page with its help panel, or a dialog. */

/** The help panel beside the full-page form (docs/web-ui.md#link-forms). */
function HelpPanel({ shortKeyword }: { shortKeyword: string }) {
  return (
    <aside class="card bg-base-200 h-fit" aria-labelledby="help-title">
      <div class="card-body gap-4 text-sm">
        <h2 id="help-title" class="card-title text-base">
          How it works
        </h2>
        <div>
          <p class="font-medium">Your short link</p>
          <p class="font-mono text-base mt-1">
            <span class="text-base-content/70">{`${shortKeyword}/`}</span>
            <span class="link-brand font-semibold" data-slug-preview>
              your-slug
            </span>
          </p>
        </div>
        <div>
          <p class="font-medium">Variables</p>
          <p class="mt-1">
            A destination like{' '}
            <code class="font-mono wrap-anywhere">
              <BreakableUrl url="https://jira.example.com/browse/$ticket" />
            </code>{' '}
            turns{' '}
            <code class="font-mono wrap-anywhere">
              <BreakableUrl url={`${shortKeyword}/jira/ABC-123`} />
            </code>{' '}
            into the ticket's page.
          </p>
        </div>
        <div>
          <p class="font-medium">Visibility</p>
          <ul class="mt-1 space-y-1">
            <li>
              <strong>Public</strong>: listed under Browse; anyone can follow it.
            </li>
            <li>
              <strong>Private</strong>: not listed; anyone who knows the slug can follow it.
            </li>
            <li>
              <strong>Secure</strong>: only owners and people you share it with, after signing in.
            </li>
          </ul>
        </div>
      </div>
    </aside>
  );
}

export function LinkFormPage(props: Omit<LinkFormProps, 'asModal'>) {
  const title = props.mode === 'create' ? 'New link' : `Edit ${props.values.slug}`;
  const back =
    props.mode === 'create'
      ? { href: '/dashboard', label: 'Dashboard' }
      : { href: `/dashboard/links/${props.linkId}`, label: 'Back to link' };
  return (
    <>
      <PageHeader title={title} back={back} />
      <div class="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <section class="card bg-base-100 border border-base-300">
          <div class="card-body">
            <LinkForm {...props} asModal={false} />
          </div>
        </section>
        <HelpPanel shortKeyword={props.shortKeyword} />
      </div>
    </>
  );
}

export function LinkFormModal(props: Omit<LinkFormProps, 'asModal'>) {
  const title = props.mode === 'create' ? 'Create a new link' : `Edit ${props.values.slug}`;
  return (
    <Modal title={title} wide>
      <LinkForm {...props} asModal />
    </Modal>
  );
}
