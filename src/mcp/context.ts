import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';
import { isAppError } from '../domain/errors.js';
import type { Actor, Capability, GrantedLink, KeywordService, LinkService } from '../links/index.js';
import type { LinkSuggestions } from '../llm/index.js';
import type { Store } from '../store/index.js';
import type { User } from '../store/types.js';
import { ToolError } from './errors.js';
import type { Payload } from './payloads.js';

/** What every tool call runs with: the token's user, the request's origin, and the shared services. */
export interface ToolContext {
  store: Pick<Store, 'analytics' | 'browse' | 'groups' | 'health' | 'links' | 'now' | 'owners' | 'shares'>;
  /** The links application layer: every change a tool makes goes through it. */
  links: LinkService;
  keywords: KeywordService;
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
  actor: Actor;
  viewer: { id: string; isAdmin: boolean };
}

/** The `link` argument every per-link tool takes. */
export const LinkRef = Type.String({ description: 'the link’s slug, one of its aliases, or its id' });

/**
 * A `link` argument, a slug first, then an id, through the links layer's one
 * access function; `not_found` names the reference, `forbidden` says `message`.
 */
export async function grantedLink(ctx: AuthedContext, ref: string, need: Capability, message: string): Promise<GrantedLink> {
  const r = ref.trim();
  if (r === '') throw new ToolError('validation_failed', 'link reference (slug or id) is required');
  const access = await ctx.links.access(ctx.actor, { slugOrId: r }, need);
  if (access.outcome === 'not_found') throw new ToolError('not_found', `no link matches "${r}"`);
  if (access.outcome === 'forbidden') throw new ToolError('forbidden', message);
  return access;
}

/** Someone named by email was not found: MCP's own code for it, with a hint that they must sign in once. */
export function unknownUser(e: unknown, email: string): unknown {
  if (isAppError(e) && e.code === 'NOT_FOUND' && e.field === 'email') {
    return new ToolError('unknown_user', `no user with email ${email.trim()}; they must sign in once first`);
  }
  if (isAppError(e) && e.code === 'NOT_FOUND' && e.field === 'share_with') return new ToolError('unknown_user', e.message);
  return e;
}
