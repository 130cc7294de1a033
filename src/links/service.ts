import type { LinkChanges } from '../domain/linkInput.js';
import type { LinkRecord } from '../domain/linkRecords.js';
import type { LinkGroup } from '../store/groups.js';
import type { Holding } from '../store/holdings.js';
import type { Store } from '../store/index.js';
import type { Link, LinkShare, LinkView, User } from '../store/types.js';
import { accessLink, type Capability, type GrantedLink, type LinkAccess, type LinkLookup } from './access.js';
import { deleteUser, type DeleteUserOptions, type UserDeletion } from './accounts.js';
import type { Actor } from './actor.js';
import { userByEmail, type EventRecorder, type LinkContext } from './context.js';
import { LinkEventBus } from './events.js';
import { auditEvents, linkHistory, type AuditFilter, type HistoryPage, type HistoryPageRequest } from './history.js';
import { importRecord, type ImportOptions, type ImportOutcome } from './importer.js';
import { startImport, type ImportInput, type ImportRequest, type ImportRun } from './importRun.js';
import {
  addGroupMember,
  createGroup,
  deleteGroup,
  getGroup,
  removeGroupMember,
  setGroupRole,
  syncSignInGroups,
  updateGroup,
  type GroupDetails,
  type GroupInput,
  type SignInGroupChanges,
} from './groups.js';
import { addGroup, addOwner, addShare, removeGroup, removeOwner, removeShare } from './members.js';
import { restoreLink } from './restore.js';
import { archiveLink, createLink, deleteLink, renewLink, setHealthChecks, unarchiveLink, updateLink, type NewLink } from './writes.js';

type Target = GrantedLink | string;

/**
 * The links application layer: the one place a link or its membership
 * changes. Web pages, REST, MCP and the CLI translate their input into one of
 * these calls and its outcome into their response. Each call takes the
 * acting user (or the system), authorizes through LinkCaps, validates once,
 * writes in one transaction and, after the commit, publishes one event per
 * change on `events`.
 */
export class LinkService {
  readonly events: LinkEventBus;
  private readonly ctx: LinkContext;

  constructor(store: Store, opts: { events?: LinkEventBus; recorders?: readonly EventRecorder[]; now?: () => number } = {}) {
    this.events = opts.events ?? new LinkEventBus();
    this.ctx = { store, events: this.events, recorders: opts.recorders ?? [], now: opts.now ?? store.now };
  }

  /** A link for someone, with what they may do to it; the one access check of every surface. */
  access(actor: Actor, lookup: LinkLookup, need: Capability): Promise<LinkAccess> {
    return accessLink(this.ctx.store, actor, lookup, need);
  }

  /** The user an email names, by the rule every surface shares. */
  userByEmail(email: string, field?: string): Promise<User> {
    return userByEmail(this.ctx, email, field);
  }

  create(actor: Actor, input: NewLink): Promise<LinkView> {
    return createLink(this.ctx, actor, input);
  }

  /** `ifVersion`: the versions the caller read it at; another one by now is PRECONDITION_FAILED (docs/api.md#conditional-requests). */
  update(actor: Actor, target: Target, changes: LinkChanges, ifVersion?: readonly string[]): Promise<LinkView> {
    return updateLink(this.ctx, actor, target, changes, ifVersion);
  }

  archive(actor: Actor, target: Target): Promise<LinkView> {
    return archiveLink(this.ctx, actor, target);
  }

  unarchive(actor: Actor, target: Target): Promise<LinkView> {
    return unarchiveLink(this.ctx, actor, target);
  }

  /** `expiresAt` null: never expires again; a time: expires then (docs/lifecycle.md#renewal). */
  renew(actor: Actor, target: Target, expiresAt: number | null = null): Promise<LinkView> {
    return renewLink(this.ctx, actor, target, expiresAt);
  }

  setHealthChecks(actor: Actor, target: Target, disabled: boolean): Promise<LinkView> {
    return setHealthChecks(this.ctx, actor, target, disabled);
  }

  delete(actor: Actor, target: Target, ifVersion?: readonly string[]): Promise<Link> {
    return deleteLink(this.ctx, actor, target, ifVersion);
  }

  addOwner(actor: Actor, target: Target, email: string): Promise<User> {
    return addOwner(this.ctx, actor, target, email);
  }

  removeOwner(actor: Actor, target: Target, userId: string): Promise<void> {
    return removeOwner(this.ctx, actor, target, userId);
  }

  addShare(actor: Actor, target: Target, email: string): Promise<LinkShare> {
    return addShare(this.ctx, actor, target, email);
  }

  removeShare(actor: Actor, target: Target, userId: string): Promise<void> {
    return removeShare(this.ctx, actor, target, userId);
  }

  /** Makes a group an owner of the link (`owner`) or shares the link with it (`share`), by the group's name. */
  addGroup(actor: Actor, target: Target, holding: Holding, groupName: string): Promise<LinkGroup> {
    return addGroup(this.ctx, actor, target, holding, groupName);
  }

  removeGroup(actor: Actor, target: Target, holding: Holding, groupId: string): Promise<void> {
    return removeGroup(this.ctx, actor, target, holding, groupId);
  }

  group(name: string): Promise<GroupDetails> {
    return getGroup(this.ctx, name);
  }

  /** A new group; a user creating it becomes its manager, the operator may name one. */
  createGroup(actor: Actor, input: GroupInput, manager?: User): Promise<GroupDetails> {
    return createGroup(this.ctx, actor, input, manager);
  }

  updateGroup(actor: Actor, name: string, input: GroupInput): Promise<GroupDetails> {
    return updateGroup(this.ctx, actor, name, input);
  }

  deleteGroup(actor: Actor, name: string): Promise<void> {
    return deleteGroup(this.ctx, actor, name);
  }

  addGroupMember(actor: Actor, name: string, email: string, role?: string): Promise<GroupDetails> {
    return addGroupMember(this.ctx, actor, name, email, role);
  }

  setGroupRole(actor: Actor, name: string, email: string, role: string): Promise<GroupDetails> {
    return setGroupRole(this.ctx, actor, name, email, role);
  }

  removeGroupMember(actor: Actor, name: string, email: string): Promise<void> {
    return removeGroupMember(this.ctx, actor, name, email);
  }

  /** Keeps the user's membership of synced groups in step with the group names their sign-in gave. */
  syncSignInGroups(user: User, names: readonly string[]): Promise<SignInGroupChanges> {
    return syncSignInGroups(this.ctx, user, names);
  }

  importRecord(actor: Actor, record: LinkRecord, opts: ImportOptions): Promise<ImportOutcome> {
    return importRecord(this.ctx, actor, record, opts);
  }

  /** A link's events, newest first (docs/history.md); members' people only with CanManageShares. */
  history(actor: Actor, target: Target, page: HistoryPageRequest): Promise<HistoryPage> {
    return linkHistory(this.ctx, actor, target, page);
  }

  /** Puts the link's fields back to what they were right after one of its events (docs/history.md#restoring-a-version). */
  restore(actor: Actor, target: Target, eventId: string): Promise<LinkView> {
    return restoreLink(this.ctx, actor, target, eventId);
  }

  /** Every event of the instance, deleted links' too; admins only (docs/history.md#the-admin-audit). */
  auditEvents(actor: Actor, filter: AuditFilter): Promise<HistoryPage> {
    return auditEvents(this.ctx, actor, filter);
  }

  /** Imports a file of any known format, row by row (docs/api.md#importing-from-other-tools). */
  importFile(actor: Actor, input: ImportInput, request: ImportRequest): Promise<ImportRun> {
    return startImport(this.ctx, actor, input, request);
  }

  /** Deletes a user account, handing on or deleting the links they are primary owner of. */
  deleteUser(actor: Actor, targetId: string, opts?: DeleteUserOptions): Promise<UserDeletion> {
    return deleteUser(this.ctx, actor, targetId, opts);
  }
}
