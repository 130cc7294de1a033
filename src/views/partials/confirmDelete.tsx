import { Modal, Panel, Spinner } from './ui.js';

/** The confirm-delete dialog of docs/web-ui.md#confirm-delete-dialogs, for a link or a keyword. */
export function ConfirmDelete({
  name,
  action,
  target,
  asModal,
  cancelHref,
}: {
  name: string;
  action: string;
  target: string;
  asModal: boolean;
  cancelHref: string;
}) {
  const body = (
    <>
      <p class="break-words">This action cannot be undone.</p>
      <div class="modal-action">
        {asModal ? (
          <button type="button" class="btn btn-ghost" data-modal-close autofocus>
            Cancel
          </button>
        ) : (
          <a class="btn btn-ghost" href={cancelHref}>
            Cancel
          </a>
        )}
        <form
          method="post"
          action={action}
          hx-delete={asModal ? action : undefined}
          hx-target={asModal ? target : undefined}
          hx-swap={asModal ? 'outerHTML' : undefined}
          data-close-modal-on-success
        >
          <input type="hidden" name="_method" value="DELETE" />
          <button type="submit" class="btn btn-error">
            <Spinner />
            Delete
          </button>
        </form>
      </div>
    </>
  );
  const title = `Delete '${name}'?`;
  return asModal ? <Modal title={title}>{body}</Modal> : <Panel title={title}>{body}</Panel>;
}
