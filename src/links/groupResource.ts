import type { Group, GroupMember, LinkGroup } from '../store/groups.js';
import type { GroupDetails } from './groups.js';
import { iso } from './resource.js';

/** The JSON shapes of groups that REST and MCP both return (docs/api.md#groups). */

export interface GroupResourceFields {
  id: string;
  name: string;
  description: string;
  managed_by_sign_in: boolean;
  created_at: string;
  updated_at: string;
}

export interface GroupMemberResource {
  id: string;
  email: string;
  display_name: string;
  role: 'member' | 'manager';
  added_at: string;
}

function fields(g: Group): GroupResourceFields {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    managed_by_sign_in: g.synced,
    created_at: iso(g.createdAt),
    updated_at: iso(g.updatedAt),
  };
}

export function toGroupResource(g: Group, memberCount: number): GroupResourceFields & { member_count: number } {
  return { ...fields(g), member_count: memberCount };
}

export function toGroupMemberResource(m: GroupMember): GroupMemberResource {
  return { id: m.userId, email: m.email, display_name: m.displayName, role: m.role, added_at: iso(m.createdAt) };
}

export function toGroupDetailResource(g: GroupDetails): GroupResourceFields & { members: GroupMemberResource[] } {
  return { ...fields(g), members: g.members.map(toGroupMemberResource) };
}

export function toGroupOwnerResource(g: LinkGroup): { id: string; group: string; is_primary: false } {
  return { id: g.groupId, group: g.name, is_primary: false };
}

export function toGroupShareResource(g: LinkGroup): { link_id: string; group_id: string; group: string; created_at: string } {
  return { link_id: g.linkId, group_id: g.groupId, group: g.name, created_at: iso(g.createdAt) };
}
