import { Type } from '@sinclair/typebox';
import { AppError, isAppError } from '../domain/errors.js';
import { memberOf } from '../domain/members.js';
import { iso, toOwnerResource } from '../links/index.js';
import { defineTool, grantedLink, LinkRef, unknownUser, type AuthedContext } from './context.js';
import { ToolError } from './errors.js';
import type { Payload } from './payloads.js';
import { groupLookupName } from '../domain/groups.js';

/**
 * Shares, co-owners, stats, keywords and LLM suggestions over MCP
 * (docs/agents.md#mcp-tools), each on the store calls of its REST
 * counterpart and gated by the same LinkCaps capability.
 */

const MANAGE_SHARES = 'only owners and admins may manage shares';
const EmailArg = Type.String({ description: 'email of an existing user (case does not matter)' });
const GroupArg = Type.String({ description: 'name of a group (instead of email): every member holds it' });

/** A person (`email`) or a group (`group`), exactly one (domain/members.ts), as REST's bodies take them. */
const MemberArgs = { link: LinkRef, email: Type.Optional(EmailArg), group: Type.Optional(GroupArg) };

/** A group named in a tool call that does not exist. */
function unknownGroup(e: unknown, name: string): unknown {
  if (isAppError(e) && e.code === 'NOT_FOUND' && e.field === 'group') return new ToolError('not_found', `no group named ${name.trim()}`);
  return e;
}

/**
 * Who holds the link as `holding`: people's emails (or owner records) and, when there are
 * any, groups' names, each sorted; empty members are left out as elsewhere in MCP.
 */
async function holders(ctx: AuthedContext, linkId: string, holding: 'owner' | 'share'): Promise<Payload> {
  const groups = ((await ctx.store.groups.ofLinks(holding, [linkId])).get(linkId) ?? []).map((g) => g.name).sort();
  const out: Payload =
    holding === 'owner'
      ? { owners: (await ctx.store.owners.list(linkId)).map(toOwnerResource) }
      : { shared_with: (await ctx.store.shares.list(linkId)).map((s) => s.email).sort() };
  if (groups.length > 0) out[holding === 'owner' ? 'owner_groups' : 'shared_with_groups'] = groups;
  return out;
}

export const shareLinkTool = defineTool({
  name: 'share_link',
  description:
    'Share a link you own or co-own with a user by email (they must have signed in once) or with a group by name. ' +
    "Secure links admit only owners and share recipients, a group's members included.",
  input: Type.Object(MemberArgs, { additionalProperties: false }),
  async run(args, ctx) {
    const member = memberOf(args);
    const granted = await grantedLink(ctx, args.link, 'canManageShares', MANAGE_SHARES);
    if ('group' in member) {
      await ctx.links.addGroup(ctx.actor, granted, 'share', member.group).catch((e: unknown) => {
        throw unknownGroup(e, member.group);
      });
    } else {
      await ctx.links.addShare(ctx.actor, granted, member.email).catch((e: unknown) => {
        throw unknownUser(e, member.email);
      });
    }
    return { link: granted.link.slug, ...(await holders(ctx, granted.link.id, 'share')) };
  },
});

export const unshareLinkTool = defineTool({
  name: 'unshare_link',
  description:
    'Stop sharing a link with a user by email or a group by name. Succeeds when the link was not shared with them, and returns the current recipients.',
  input: Type.Object(MemberArgs, { additionalProperties: false }),
  async run(args, ctx) {
    const member = memberOf(args);
    const granted = await grantedLink(ctx, args.link, 'canManageShares', MANAGE_SHARES);
    try {
      if ('group' in member) {
        const group = await ctx.store.groups.byName(groupLookupName(member.group));
        if (!group) throw new ToolError('not_found', `no group named ${member.group.trim()}`);
        await ctx.links.removeGroup(ctx.actor, granted, 'share', group.id);
      } else {
        const user = await ctx.links.userByEmail(member.email).catch((e: unknown) => {
          throw unknownUser(e, member.email);
        });
        await ctx.links.removeShare(ctx.actor, granted, user.id);
      }
    } catch (e) {
      // Idempotent by design: "not shared with them" is the state the caller asked for.
      if (!(e instanceof AppError && e.code === 'NOT_FOUND')) throw e;
    }
    return { link: granted.link.slug, ...(await holders(ctx, granted.link.id, 'share')) };
  },
});

export const addCoOwnerTool = defineTool({
  name: 'add_co_owner',
  description:
    'Make a user (by email) or a group (by name) a co-owner of a link you own or co-own: they may then edit, delete and share it.',
  input: Type.Object(MemberArgs, { additionalProperties: false }),
  async run(args, ctx) {
    const member = memberOf(args);
    const granted = await grantedLink(ctx, args.link, 'canManageShares', MANAGE_SHARES);
    if ('group' in member) {
      await ctx.links.addGroup(ctx.actor, granted, 'owner', member.group).catch((e: unknown) => {
        throw unknownGroup(e, member.group);
      });
    } else {
      await ctx.links.addOwner(ctx.actor, granted, member.email).catch((e: unknown) => {
        throw unknownUser(e, member.email);
      });
    }
    return { link: granted.link.slug, ...(await holders(ctx, granted.link.id, 'owner')) };
  },
});

export const STATS_DEFAULT = 20;
export const STATS_MAX = 100;

export const getLinkStatsTool = defineTool({
  name: 'get_link_stats',
  description:
    'Click counts of a link (total, last 7 and 30 days) and its most recent clicks, newest first. ' +
    'Who clicked is shown only to owners and admins.',
  input: Type.Object(
    {
      link: LinkRef,
      limit: Type.Optional(Type.Integer({ description: `recent clicks to return: default ${STATS_DEFAULT}, at most ${STATS_MAX}` })),
    },
    { additionalProperties: false },
  ),
  async run(args, ctx) {
    const { link, caps } = await grantedLink(ctx, args.link, 'canStats', 'you do not have access to this link');
    const limit = args.limit === undefined || args.limit <= 0 ? STATS_DEFAULT : Math.min(args.limit, STATS_MAX);
    const [totals, page] = await Promise.all([
      ctx.store.analytics.totals(link.id),
      // Clicker identity only with CanManageShares, decided by the store from this flag.
      ctx.store.analytics.recentClicks(link.id, { limit, attribution: caps.canManageShares }),
    ]);
    const recent = page.clicks.map((c) => {
      const row: Payload = { clicked_at: iso(c.clickedAt) };
      if (c.referrer) row.referrer = c.referrer;
      if (c.user && c.user.displayName !== '') row.user = c.user.displayName;
      return row;
    });
    return { link: link.slug, total: totals.total, last_7d: totals.last7d, last_30d: totals.last30d, recent };
  },
});

export const listKeywordsTool = defineTool({
  name: 'list_keywords',
  description: 'The keywords configured on this server (e.g. "gh" for gh/<repo>), by name.',
  input: Type.Object({}, { additionalProperties: false }),
  async run(_args, ctx) {
    return { keywords: (await ctx.keywords.list()).map((k) => k.keyword) };
  },
});

export const suggestLinkMetadataTool = defineTool({
  name: 'suggest_link_metadata',
  description: 'Ask the configured LLM for a slug, title, description and tags for a URL. Advisory only: nothing is saved.',
  input: Type.Object({ url: Type.String({ description: 'the destination to describe' }) }, { additionalProperties: false }),
  available: (ctx) => ctx.suggestions !== null,
  async run(args, ctx) {
    if (args.url.trim() === '') throw new ToolError('validation_failed', 'url is required');
    if (!ctx.suggestions) throw new ToolError('llm_error', 'LLM suggestions are not configured');
    const s = await ctx.suggestions.suggest({ url: args.url }, ctx.log);
    const out: Payload = {};
    if (s.slug !== '') out.slug = s.slug;
    if (s.title !== '') out.title = s.title;
    if (s.description !== '') out.description = s.description;
    if (s.tags.length > 0) out.tags = s.tags;
    return out;
  },
});
