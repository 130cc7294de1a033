import { Spinner } from './ui.js';

/** The renewal lengths offered beside an expired link (docs/lifecycle.md#renewal); none left means "never expires". */
export const RENEW_DAYS = [30, 90] as const;

/**
 * Renew an expired link for 30 or 90 more days, or for good, on pages that hold one expired
 * link (its own page, the expired page). `hxTarget`: swap that element with the answer;
 * without it a plain post, answered with the link's page.
 */
export function RenewChoices({ linkId, hxTarget, centered = false }: { linkId: string; hxTarget?: string; centered?: boolean }) {
  const action = `/dashboard/links/${linkId}/renew`;
  const swap = hxTarget ? { 'hx-post': action, 'hx-target': hxTarget, 'hx-swap': 'outerHTML', 'hx-disabled-elt': 'find button' } : {};
  return (
    <form
      method="post"
      action={action}
      {...swap}
      class={`flex flex-wrap items-center gap-2${centered ? ' justify-center' : ''}`}
      aria-label="Renew"
    >
      <input type="hidden" name="from" value="detail" />
      {RENEW_DAYS.map((days) => (
        <button type="submit" name="days" value={String(days)} class="btn btn-sm btn-primary">
          <Spinner />
          {`Renew +${days} days`}
        </button>
      ))}
      <button type="submit" name="days" value="" class="btn btn-sm btn-outline">
        Renew without expiry
      </button>
    </form>
  );
}
