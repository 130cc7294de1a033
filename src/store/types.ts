import type { Kysely, Transaction } from 'kysely';
import type { Visibility } from '../domain/caps.js';
import type { Database } from '../db/schema.js';

export type Role = 'user' | 'admin';
export type RoleSource = 'manual' | 'config';

export interface User {
  id: string;
  provider: string;
  subject: string;
  email: string;
  displayName: string;
  displayNameSlug: string;
  role: Role;
  roleSource: RoleSource;
  createdAt: number;
  updatedAt: number;
}

/** Who is asking. `null` is an anonymous visitor. */
export type Viewer = { id: string; isAdmin: boolean } | null;

export function viewerOf(user: User | null | undefined): Viewer {
  return user ? { id: user.id, isAdmin: user.role === 'admin' } : null;
}

export interface Link {
  id: string;
  slug: string;
  url: string;
  title: string;
  description: string;
  visibility: Visibility;
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
  archivedAt: number | null;
  healthChecksDisabled: boolean;
  /** docs/links.md#path-and-query-forwarding */
  forwardPathAndQuery: boolean;
  /** A templated link's destination when visited with no value (docs/links.md#default-destination). */
  defaultUrl: string | null;
}

export interface LinkOwner {
  userId: string;
  email: string;
  displayName: string;
  displayNameSlug: string;
  isPrimary: boolean;
}

export interface Tag {
  id: string;
  name: string;
  slug: string;
}

/** A link with the facts every list and detail view shows. */
export interface LinkView extends Link {
  tags: Tag[];
  owners: LinkOwner[];
  /** Its other names, sorted (docs/links.md#aliases). */
  aliases: string[];
}

export interface LinkShare {
  linkId: string;
  userId: string;
  email: string;
  displayName: string;
  sharedBy: string;
  createdAt: number;
}

export interface Keyword {
  id: string;
  keyword: string;
  urlTemplate: string;
  description: string;
  createdAt: number;
}

export type Executor = Kysely<Database> | Transaction<Database>;
export type Clock = () => number;
