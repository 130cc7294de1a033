import type { LinkChanges, LinkDraft } from '../../src/domain/linkInput.js';
import { asSystem, asUser, historyRecorder, LinkService, type LinkAction, type UserDeletion } from '../../src/links/index.js';
import type { Store } from '../../src/store/index.js';
import type { Link, LinkView, User } from '../../src/store/types.js';

/**
 * Fixture writes for tests, made through the links application layer the
 * product itself uses, so a fixture can never hold a link the product could
 * not have made.
 */

const services = new WeakMap<Store, LinkService>();
const operator = asSystem('test');

export function linkService(store: Store): LinkService {
  let service = services.get(store);
  if (!service) {
    service = new LinkService(store, { recorders: [historyRecorder(store)] });
    services.set(store, service);
  }
  return service;
}

async function userById(store: Store, id: string): Promise<User> {
  const user = await store.users.findById(id);
  if (!user) throw new Error(`fixture: no user ${id}`);
  return user;
}

/** The user's email; an id that names no user becomes an address no user has, so the product's own "user not found" answers. */
async function emailOf(store: Store, id: string): Promise<string> {
  return (await store.users.findById(id))?.email ?? `${id}@nobody.invalid`;
}

/** Creates a link owned by `ownerId`, shared with the users whose ids are given. */
export async function createLink(
  store: Store,
  input: LinkDraft,
  ownerId: string,
  opts: { shareWith?: readonly string[]; healthChecksDisabled?: boolean } = {},
): Promise<LinkView> {
  const shareWith = await Promise.all((opts.shareWith ?? []).map((id) => emailOf(store, id)));
  return linkService(store).create(operator, { ...input, ownerId, shareWith, healthChecksDisabled: opts.healthChecksDisabled });
}

export function updateLink(store: Store, id: string, changes: LinkChanges): Promise<LinkView> {
  return linkService(store).update(operator, id, changes);
}

/** Archive, unarchive, renew or toggle health checks, in that order, as the web and API do one at a time. */
export async function setLifecycle(
  store: Store,
  id: string,
  change: { archived?: boolean; healthChecksDisabled?: boolean; renew?: boolean },
): Promise<LinkView> {
  const links = linkService(store);
  let view: LinkView | undefined;
  if (change.archived === true) view = await links.archive(operator, id);
  if (change.archived === false) view = await links.unarchive(operator, id);
  if (change.renew === true) view = await links.renew(operator, id);
  if (change.healthChecksDisabled !== undefined) view = await links.setHealthChecks(operator, id, change.healthChecksDisabled);
  if (!view) throw new Error('fixture: setLifecycle with nothing to change');
  return view;
}

export function deleteLink(store: Store, id: string): Promise<Link> {
  return linkService(store).delete(operator, id);
}

export async function addOwner(store: Store, linkId: string, userId: string): Promise<void> {
  await linkService(store).addOwner(operator, linkId, await emailOf(store, userId));
}

export function removeOwner(store: Store, linkId: string, userId: string): Promise<void> {
  return linkService(store).removeOwner(operator, linkId, userId);
}

/** Shares a link with `userId`, made by `sharedBy` (who must be allowed to share it). */
export async function addShare(store: Store, linkId: string, userId: string, sharedBy: string): Promise<void> {
  const by = asUser(await userById(store, sharedBy));
  await linkService(store).addShare(by, linkId, await emailOf(store, userId));
}

export function removeShare(store: Store, linkId: string, userId: string): Promise<void> {
  return linkService(store).removeShare(operator, linkId, userId);
}

/** Deletes a user as the admin `actingAdminId` would from the admin page. */
export async function deleteUser(store: Store, targetId: string, actingAdminId: string, linkAction?: LinkAction): Promise<UserDeletion> {
  return linkService(store).deleteUser(asUser(await userById(store, actingAdminId)), targetId, { linkAction });
}
