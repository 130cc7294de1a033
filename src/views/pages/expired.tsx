import type { LinkOwner } from '../../store/types.js';
import { RenewChoices } from '../partials/renewChoices.js';
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
