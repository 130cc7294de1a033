import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';
import type { LinkCaps } from '../domain/caps.js';
import { isUuid } from '../http/api/guards.js';
import type { LinkSuggestions } from '../llm/index.js';
import type { Store } from '../store/index.js';
import type { Link, User } from '../store/types.js';
import { ToolError } from './errors.js';
import type { Payload } from './payloads.js';

/** What every tool call runs with: the token's user, the request's origin, and the shared services. */
export interface ToolContext {
  store: Store;
  /** The bearer token's user; null only if authentication was somehow skipped. */
  user: User | null;
  /** `scheme://host` of the request, for `short_url`. */
  origin: string;
  /** Null when no LLM provider is configured: `suggest_link_metadata` is then not offered. */
  suggestions: LinkSuggestions | null;
  log: FastifyBaseLogger;
}

/** A tool: name, description, JSON Schema input (TypeBox), and the handler. */
export interface ToolDefinition<S extends TSchema = TSchema> {
  name: string;
  description: string;
  input: S;
  /** Only offered when this holds (the LLM tool). */
  available?: (ctx: ToolContext) => boolean;
  run(args: Static<S>, ctx: AuthedContext): Promise<Payload>;
}

export function defineTool<S extends TSchema>(tool: ToolDefinition<S>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

export interface AuthedContext extends ToolContext {
  user: User;
  viewer: { id: string; isAdmin: boolean };
}

/** The `link` argument every per-link tool takes. */
export const LinkRef = Type.String({ description: 'the link’s slug, or its id' });

/**
 * A `link` argument (agents-and-extension.md §1.3 rule 4): a slug first, then
 * an id. Stored slugs are lower case, so the slug is looked up lower-cased
 * like the resolver does.
 */
export async function findLink(ctx: ToolContext, ref: string): Promise<Link> {
  const r = ref.trim();
  if (r === '') throw new ToolError('validation_failed', 'link reference (slug or id) is required');
  const link = (await ctx.store.links.getBySlug(r.toLowerCase())) ?? (isUuid(r) ? await ctx.store.links.get(r) : null);
  if (!link) throw new ToolError('not_found', `no link matches "${r}"`);
  return link;
}

/** The caller's capabilities on `link` through LinkCaps (store.access), or `forbidden` with `message`. */
export async function requireCap(ctx: AuthedContext, link: Link, cap: keyof LinkCaps, message: string): Promise<LinkCaps> {
  const caps = await ctx.store.access.caps(link.id, ctx.viewer);
  if (!caps[cap]) throw new ToolError('forbidden', message);
  return caps;
}

/** The user with exactly this (trimmed) email, or `unknown_user`. Blank is a validation failure. */
export async function userByEmail(ctx: ToolContext, email: string): Promise<User> {
  const e = email.trim();
  if (e === '') throw new ToolError('validation_failed', 'email is required');
  const user = await ctx.store.users.findByExactEmail(e);
  if (!user) throw new ToolError('unknown_user', `no user with email ${e}; they must sign in once first`);
  return user;
}
