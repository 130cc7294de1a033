import { Type } from '@sinclair/typebox';
import { SLUG_RULE_SUMMARY } from '../domain/slug.js';
import { AppError, isAppError } from '../domain/errors.js';
import { expiryFromRfc3339, type LinkChanges } from '../domain/linkInput.js';
import { tagSlug } from '../domain/tags.js';
import { fullLinkResource, linkResources, viewVersion } from '../links/index.js';
import type { LinkView } from '../store/types.js';
import { defineTool, grantedLink, LinkRef, unknownUser, type AuthedContext } from './context.js';
import { ToolError } from './errors.js';
import { linkPayload, listItemPayload, type Payload } from './payloads.js';

/**
 * The link tools (docs/agents.md#mcp-tools). Each one authorizes
 * through LinkCaps (`links.access`) and writes through the same
 * LinkService as REST (`links/`), so validation order, messages and
 * stored results are REST's. Input schemas check only shapes;
 * every rule with a REST error code (slug, URL, lengths, tags, visibility,
 * expiry, list filter) is checked by the domain so it comes back as a
 * `validation_failed` tool error with REST's message, not a protocol error.
 */

/** Share rosters are bounded so one call cannot turn into thousands of user lookups. */
const MAX_SHARE_WITH = 50;

const text = (description: string) => Type.String({ description });

/** The full payload for a caller holding CanView; the roster only with CanManageShares. */
export async function payloadFor(ctx: AuthedContext, view: LinkView, canManageShares: boolean): Promise<Payload> {
  const sharedWith = canManageShares ? (await ctx.store.shares.list(view.id)).map((s) => s.email) : undefined;
  return { ...linkPayload(await fullLinkResource(ctx.store, view), ctx.origin, sharedWith), version: viewVersion(view) };
}

const VersionArg = Type.Optional(
  Type.String({
    description:
      'the `version` of the link as you read it: when it changed since, the call fails with version_conflict and changes nothing; omit to skip the check',
  }),
);

export const createLinkTool = defineTool({
  name: 'create_link',
  description:
    'Create a go link owned by you. Visibility defaults to "private", or "secure" when share_with names anyone; ' +
    'share_with users must already have signed in once. Fails with duplicate_slug when the slug is taken (as a slug or an alias), ' +
    'duplicate_alias when an alias is.',
  input: Type.Object(
    {
      slug: text(SLUG_RULE_SUMMARY),
      url: text('http(s) destination; may contain $name placeholders, each at most once'),
      default_url: Type.Optional(
        text(
          'only when url has $name placeholders: where the link goes when visited with no value, instead of the fill-in page; no placeholders',
        ),
      ),
      title: Type.Optional(text('at most 200 characters')),
      description: Type.Optional(text('at most 2000 characters')),
      tags: Type.Optional(
        Type.Array(Type.String(), {
          description: 'at most 20 tag names: letters, digits, spaces, "-" and "_", each at most 50 characters',
        }),
      ),
      visibility: Type.Optional(
        text('"public", "private", "secure" or "internal" (anyone signed in); default "private", or "secure" when share_with is given'),
      ),
      expires_at: Type.Optional(text('RFC 3339 date-time in the future, e.g. 2030-01-02T15:04:05Z; empty = never expires')),
      health_checks_disabled: Type.Optional(Type.Boolean({ description: 'opt the link out of destination health checks' })),
      aliases: Type.Optional(
        Type.Array(Type.String(), {
          description: 'at most 10 more names that resolve like the slug; slug rules; unique among all slugs and aliases',
        }),
      ),
      forward_path_and_query: Type.Optional(
        Type.Boolean({ description: 'append a visit’s extra path and query to the destination (go/docs/a?b=c → <url>/a?b=c)' }),
      ),
      share_with: Type.Optional(
        Type.Array(Type.String(), { maxItems: MAX_SHARE_WITH, description: 'emails of existing users to share the link with' }),
      ),
    },
    { additionalProperties: false },
  ),
  async run(args, ctx) {
    const emails = (args.share_with ?? []).map((e) => e.trim()).filter((e) => e !== '');
    const visibility = args.visibility !== undefined && args.visibility !== '' ? args.visibility : emails.length > 0 ? 'secure' : 'private';
    const view = await ctx.links
      .create(ctx.actor, {
        slug: args.slug,
        url: args.url,
        defaultUrl: args.default_url,
        title: args.title,
        description: args.description,
        visibility,
        tags: args.tags,
        expiresAt: args.expires_at === '' ? null : expiryFromRfc3339(args.expires_at),
        healthChecksDisabled: args.health_checks_disabled,
        aliases: args.aliases,
        forwardPathAndQuery: args.forward_path_and_query,
        shareWith: emails,
      })
      .catch((e: unknown) => {
        if (e instanceof AppError && e.code === 'SLUG_CONFLICT')
          throw new ToolError('duplicate_slug', `slug "${args.slug}" already exists`);
        throw unknownUser(e, '');
      });
    return payloadFor(ctx, view, true);
  },
});

export const getLinkTool = defineTool({
  name: 'get_link',
  description: 'Get one link by slug or id: owners, co-owners, share recipients and admins may read it.',
  input: Type.Object({ link: LinkRef }, { additionalProperties: false }),
  async run(args, ctx) {
    const { link, caps } = await grantedLink(ctx, args.link, 'canView', 'you do not have access to this link');
    const view = await ctx.store.links.view(link.id);
    if (!view) throw new ToolError('not_found', `no link matches "${args.link.trim()}"`);
    return payloadFor(ctx, view, caps.canManageShares);
  },
});

const FILTERS = ['', 'mine', 'shared', 'public'] as const;
export const LIST_DEFAULT = 50;
export const LIST_MAX = 200;

export const listLinksTool = defineTool({
  name: 'list_links',
  description:
    'List links. filter "mine" (default): links you own or co-own, any lifecycle state, by slug; "shared": links shared with you, by slug; ' +
    '"public": everyone’s active public links, newest first. q searches slug, URL, title, description and owner names; tag (mine only) filters by tag.',
  input: Type.Object(
    {
      q: Type.Optional(text('case-insensitive literal substring of slug, URL, title, description or an owner name (mine and public)')),
      tag: Type.Optional(text('tag slug, used with filter "mine" when q is empty')),
      filter: Type.Optional(text('"mine" (default), "shared" or "public"')),
      limit: Type.Optional(Type.Integer({ description: `rows to return: default ${LIST_DEFAULT}, at most ${LIST_MAX}` })),
    },
    { additionalProperties: false },
  ),
  async run(args, ctx) {
    const filter = args.filter ?? '';
    if (!(FILTERS as readonly string[]).includes(filter))
      throw new ToolError('validation_failed', 'filter must be "mine", "shared", or "public"');
    const limit = args.limit === undefined || args.limit <= 0 ? LIST_DEFAULT : Math.min(args.limit, LIST_MAX);
    const q = args.q ?? '';
    const { store, viewer } = ctx;
    let links: LinkView[];
    if (filter === 'public') {
      // The public browser's own query: public, neither expired nor archived, newest first.
      links = (await store.browse.publicLinks({ q, offset: 0, limit })).links;
    } else if (filter === 'shared') {
      links = (await store.links.list({ scope: 'shared', viewer, limit })).links;
    } else {
      const tag = q === '' && args.tag !== undefined && args.tag.trim() !== '' ? tagSlug(args.tag) : undefined;
      links = (await store.links.list({ scope: 'owned', viewer, q: q === '' ? undefined : q, tagSlug: tag, limit })).links;
    }
    const rows = (await linkResources(store, links, viewer)).map((b) => listItemPayload(b, ctx.origin));
    return { links: rows, count: rows.length };
  },
});

export const updateLinkTool = defineTool({
  name: 'update_link',
  description:
    'Change a link you own or co-own (admins: any). Only the fields you pass change. expires_at null or "" clears the expiry; ' +
    'tags and aliases each replace the whole set ([] clears it); archived true/false archives or restores the link.',
  input: Type.Object(
    {
      link: LinkRef,
      url: Type.Optional(text('new http(s) destination; cannot be empty')),
      default_url: Type.Optional(
        Type.Union([Type.String(), Type.Null()], {
          description:
            'where a $name template goes when visited with no value; null or "" clears it; omit to keep it; refused beside a url without placeholders',
        }),
      ),
      title: Type.Optional(text('at most 200 characters')),
      description: Type.Optional(text('at most 2000 characters')),
      tags: Type.Optional(Type.Array(Type.String(), { description: 'replaces every tag; at most 20' })),
      visibility: Type.Optional(text('"public", "private", "secure" or "internal" (anyone signed in); empty keeps the current value')),
      expires_at: Type.Optional(
        Type.Union([Type.String(), Type.Null()], { description: 'RFC 3339 date-time; null or "" clears it; omit to keep it' }),
      ),
      archived: Type.Optional(Type.Boolean({ description: 'true archives (keeping the first archive time), false restores' })),
      health_checks_disabled: Type.Optional(Type.Boolean({ description: 'opt the link out of destination health checks' })),
      aliases: Type.Optional(Type.Array(Type.String(), { description: 'replaces every alias ([] removes them all); at most 10' })),
      forward_path_and_query: Type.Optional(Type.Boolean({ description: 'append a visit’s extra path and query to the destination' })),
      version: VersionArg,
    },
    { additionalProperties: false },
  ),
  async run(args, ctx) {
    const granted = await grantedLink(ctx, args.link, 'canEdit', 'only owners and admins may update a link');
    const changes: LinkChanges = {
      url: args.url,
      defaultUrl: args.default_url,
      title: args.title,
      description: args.description,
      tags: args.tags,
      visibility: args.visibility,
      archived: args.archived,
      healthChecksDisabled: args.health_checks_disabled,
      aliases: args.aliases,
      forwardPathAndQuery: args.forward_path_and_query,
    };
    // Present-but-null is told apart from absent: the arguments arrive exactly as the client sent them.
    if (Object.prototype.hasOwnProperty.call(args, 'expires_at')) {
      changes.expiresAt = args.expires_at === null || args.expires_at === '' ? null : expiryFromRfc3339(args.expires_at);
    }
    const ifVersion = args.version === undefined ? undefined : [args.version];
    const view = await ctx.links.update(ctx.actor, granted, changes, ifVersion).catch((e: unknown) => {
      // MCP's own wording for the one rule an argument of update_link can break before any other.
      if (isAppError(e) && e.code === 'BAD_REQUEST' && e.field === 'url') throw new ToolError('validation_failed', 'url cannot be empty');
      throw e;
    });
    return payloadFor(ctx, view, true);
  },
});

export const deleteLinkTool = defineTool({
  name: 'delete_link',
  description: 'Delete a link you own or co-own (admins: any), with its tags, shares and clicks. The slug becomes free.',
  input: Type.Object({ link: LinkRef, version: VersionArg }, { additionalProperties: false }),
  async run(args, ctx) {
    const granted = await grantedLink(ctx, args.link, 'canDelete', 'only owners and admins may delete a link');
    const link = await ctx.links.delete(ctx.actor, granted, args.version === undefined ? undefined : [args.version]);
    return { deleted: true, slug: link.slug };
  },
});
