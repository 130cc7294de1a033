import { Type } from '@sinclair/typebox';
import { toHistoryEventResource, type HistoryEventResource } from '../links/index.js';
import { defineTool, grantedLink, LinkRef } from './context.js';
import { payloadFor } from './linkTools.js';
import type { Payload } from './payloads.js';

/**
 * Link history over MCP (docs/agents.md#mcp-tools, docs/history.md): the
 * links layer decides who sees what and what a restore may do, exactly as for
 * REST; events are REST's event bodies with null and empty members left out,
 * as every MCP payload does.
 */

export const HISTORY_DEFAULT = 50;
export const HISTORY_MAX = 200;

function eventPayload(e: HistoryEventResource): Payload {
  const out: Payload = {};
  for (const [key, value] of Object.entries(e)) {
    if (value === null) continue;
    if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) continue;
    out[key] = value;
  }
  return out;
}

export const getLinkHistoryTool = defineTool({
  name: 'get_link_history',
  description:
    'The history of a link, newest first: every change with who made it, when, through which surface, and each changed field ' +
    'with its value before and after. Who added or removed an owner or share recipient is shown only to owners and admins. ' +
    'Pass next_cursor back as cursor for older events.',
  input: Type.Object(
    {
      link: LinkRef,
      limit: Type.Optional(Type.Integer({ description: `events to return: default ${HISTORY_DEFAULT}, at most ${HISTORY_MAX}` })),
      cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous call' })),
    },
    { additionalProperties: false },
  ),
  async run(args, ctx) {
    const granted = await grantedLink(ctx, args.link, 'canView', 'you do not have access to this link');
    const page = await ctx.links.history(ctx.actor, granted, { limit: args.limit, cursor: args.cursor });
    const out: Payload = { link: granted.link.slug, events: page.events.map((e) => eventPayload(toHistoryEventResource(e))) };
    if (page.nextCursor !== null) out.next_cursor = page.nextCursor;
    return out;
  },
});

export const restoreLinkVersionTool = defineTool({
  name: 'restore_link_version',
  description:
    'Put a link you own or co-own (admins: any) back to its fields right after one of its history events (event_id from ' +
    'get_link_history). Fails with restore_conflict when today’s rules refuse that version (an expiry now past), and with ' +
    'validation_failed for an owner or share event; nothing changes then.',
  input: Type.Object(
    { link: LinkRef, event_id: Type.String({ description: 'the id of an event of this link' }) },
    { additionalProperties: false },
  ),
  async run(args, ctx) {
    const granted = await grantedLink(ctx, args.link, 'canEdit', 'only owners and admins may restore a link');
    return payloadFor(ctx, await ctx.links.restore(ctx.actor, granted, args.event_id.trim()), true);
  },
});
