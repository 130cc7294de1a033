import type { LinkOwner } from '../../store/types.js';
import { RenewChoices } from '../partials/renewChoices.js';
import { Spinner } from '../partials/ui.js';
import { ErrorHero } from './errors.js';

/**
 * The expired outcome (docs/lifecycle.md#resolving-expired-and-archived-links): names the slug,
 * the owner only where allowed, never a create offer; a viewer who may edit the link can renew it
 * right here (`renewId`).
 */
/** "Ask its owner, Ana, to …", or nothing when the owner may not be named. */
function AskOwner({ owner, to }: { owner: LinkOwner | null; to: string }) {
  if (!owner) return null;
  return (
    <p>
      Ask its owner,{' '}
      <a class="link font-semibold" href={`/u/${owner.displayNameSlug}`}>
        {owner.displayName}
      </a>
      , {to}.
    </p>
  );
}

export function Expired({ slug, owner, renewId = null }: { slug: string; owner: LinkOwner | null; renewId?: string | null }) {
  return (
    <ErrorHero status={404} title={<>Link expired: {slug}</>} wide>
      <p>This short link has reached its expiry date and no longer redirects.</p>
      <AskOwner owner={owner} to="to renew it" />
      {renewId !== null && (
        <div class="space-y-2">
          <p>You can edit this link: renew it and it redirects again.</p>
          <RenewChoices linkId={renewId} centered />
        </div>
      )}
    </ErrorHero>
  );
}

/**
 * The archived outcome (docs/lifecycle.md#resolving-expired-and-archived-links): the slug is
 * taken and kept, so it says so instead of "nobody has made it"; its owners (any CanEdit viewer)
 * may restore it, and one who may gets Unarchive right here (`unarchiveId`).
 */
export function Archived({ slug, owner, unarchiveId = null }: { slug: string; owner: LinkOwner | null; unarchiveId?: string | null }) {
  return (
    <ErrorHero status={404} title={<>Link archived: {slug}</>} wide>
      <p>This short link has been archived and no longer redirects. Its owners can restore it.</p>
      <AskOwner owner={owner} to="to unarchive it" />
      {unarchiveId !== null && (
        <form method="post" action={`/dashboard/links/${unarchiveId}/unarchive`} class="space-y-2">
          <p>You can edit this link: unarchive it and it redirects again.</p>
          <button type="submit" class="btn btn-sm btn-primary">
            <Spinner />
            Unarchive
          </button>
        </form>
      )}
    </ErrorHero>
  );
}
