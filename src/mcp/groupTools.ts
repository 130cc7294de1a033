import { Type } from '@sinclair/typebox';
import { pageLimit } from '../domain/keysetCursor.js';
import { toGroupDetailResource, toGroupResource } from '../links/index.js';
import { defineTool, unknownUser } from './context.js';
import type { Payload } from './payloads.js';

/**
 * Groups over MCP (docs/agents.md#mcp-tools, docs/groups.md), on the links layer's group
 * calls that REST uses: anyone may list, read and create groups; a group's managers and
 * admins change its members.
 */

const GroupArg = Type.String({ description: 'the group’s name' });
const EmailArg = Type.String({ description: 'email of an existing user (case does not matter)' });

export const listGroupsTool = defineTool({
  name: 'list_groups',
  description: 'List groups by name (up to 200), or only those you are a member of. Groups can own links and be shared links.',
  input: Type.Object(
    {
      mine: Type.Optional(Type.Boolean({ description: 'true: only the groups you are a member of' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'default 50' })),
    },
    { additionalProperties: false },
  ),
  async run(args, ctx) {
    const page = await ctx.store.groups.page({
      limit: pageLimit(args.limit === undefined ? undefined : String(args.limit)),
      memberId: args.mine ? ctx.user.id : undefined,
    });
    const counts = await ctx.store.groups.memberCounts(page.groups.map((g) => g.id));
    return { groups: page.groups.map((g) => toGroupResource(g, counts.get(g.id) ?? 0)), more: page.hasMore };
  },
});

export const getGroupTool = defineTool({
  name: 'get_group',
  description: 'A group with its members and their roles (member or manager).',
  input: Type.Object({ group: GroupArg }, { additionalProperties: false }),
  async run(args, ctx) {
    return groupPayload(await ctx.links.group(args.group));
  },
});

export const createGroupTool = defineTool({
  name: 'create_group',
  description:
    'Create a group (one word of lowercase letters, digits and hyphens); you become its manager. Then add members, and make it an owner of links or share links with it.',
  input: Type.Object({ name: GroupArg, description: Type.Optional(Type.String()) }, { additionalProperties: false }),
  async run(args, ctx) {
    return groupPayload(await ctx.links.createGroup(ctx.actor, args));
  },
});

export const addGroupMemberTool = defineTool({
  name: 'add_group_member',
  description:
    'Add someone to a group you manage, or change their role when they are already in it (role: member, the default, or manager).',
  input: Type.Object(
    { group: GroupArg, email: EmailArg, role: Type.Optional(Type.Union([Type.Literal('member'), Type.Literal('manager')])) },
    { additionalProperties: false },
  ),
  async run(args, ctx) {
    const group = await ctx.links.group(args.group);
    const user = await ctx.links.userByEmail(args.email).catch((e: unknown) => {
      throw unknownUser(e, args.email);
    });
    const member = group.members.find((m) => m.userId === user.id);
    const done = member
      ? await ctx.links.setGroupRole(ctx.actor, args.group, args.email, args.role ?? member.role)
      : await ctx.links.addGroupMember(ctx.actor, args.group, args.email, args.role);
    return groupPayload(done);
  },
});

export const removeGroupMemberTool = defineTool({
  name: 'remove_group_member',
  description: 'Remove someone from a group you manage, or leave a group yourself. A group with members keeps at least one manager.',
  input: Type.Object({ group: GroupArg, email: EmailArg }, { additionalProperties: false }),
  async run(args, ctx) {
    await ctx.links.removeGroupMember(ctx.actor, args.group, args.email).catch((e: unknown) => {
      throw unknownUser(e, args.email);
    });
    return groupPayload(await ctx.links.group(args.group));
  },
});

/** The REST group resource as a tool result: MCP answers with plain records. */
function groupPayload(group: Parameters<typeof toGroupDetailResource>[0]): Payload {
  return { ...toGroupDetailResource(group) };
}
