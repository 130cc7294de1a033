import { Type, type Static } from '@sinclair/typebox';
import { SLUG_RULE_SUMMARY } from '../../../domain/slug.js';
import type { HealthResource, LinkResource, OwnerResource, ShareResource } from '../../../links/index.js';
import { DocumentedEnum, Id, Nullable, ref, StringEnum, Timestamp } from './ref.js';
import { VISIBILITIES } from '../../../domain/caps.js';

/**
 * The link resource, its requests and its members (docs/api.md#the-link-resource,
 * docs/links.md#field-validation): request schemas check shapes only, since the domain
 * validators decide slugs, URLs, lengths, tags, visibility and expiry and keep their own
 * error codes; response schemas list every field a client may see.
 */

export const HealthSchema = Type.Object(
  {
    status: StringEnum(['unchecked', 'ok', 'broken', 'skipped']),
    last_checked_at: Nullable(Timestamp()),
    last_status: Nullable(Type.Integer({ description: 'final HTTP status of the latest check' })),
  },
  {
    $id: 'HealthResponse',
    additionalProperties: false,
    description:
      'Destination health (docs/lifecycle.md#health-status). Only for callers holding CanView; `unchecked` with nulls when the link is opted out, archived or expired.',
  },
);

export const OwnerSchema = Type.Object(
  {
    id: Id('user id'),
    email: Type.String(),
    is_primary: Type.Boolean(),
  },
  { $id: 'OwnerResponse', additionalProperties: false },
);

export const LinkSchema = Type.Object(
  {
    id: Id(),
    slug: Type.String(),
    url: Type.String({ description: 'the stored destination; `$variable` placeholders are returned untouched' }),
    title: Type.String(),
    description: Type.String(),
    visibility: StringEnum(['public', 'private', 'secure', 'internal']),
    expires_at: Nullable(Timestamp('null = never expires')),
    archived_at: Nullable(Timestamp('null = not archived')),
    lifecycle_state: StringEnum(['active', 'expired', 'archived'], {
      description: 'derived at read time: archived, else expired once expires_at has passed, else active',
    }),
    health: Type.Optional(ref(HealthSchema)),
    health_checks_disabled: Type.Optional(Type.Boolean({ description: 'only for callers holding CanView' })),
    tags: Type.Array(Type.String(), { description: 'tag display names' }),
    aliases: Type.Array(Type.String(), { description: 'the link’s other names, sorted; each resolves like the slug' }),
    forward_path_and_query: Type.Boolean({ description: 'a visit’s extra path segments and query are appended to the destination' }),
    default_url: Nullable(Type.String({ description: 'where a `$name` template goes when visited with no value; null: the fill-in page' })),
    owners: Type.Array(ref(OwnerSchema), { description: 'primary owner first, then by display name' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { $id: 'LinkResponse', additionalProperties: false },
);

export const LinkListSchema = Type.Object(
  {
    links: Type.Array(ref(LinkSchema)),
    next_cursor: Nullable(Type.String({ description: 'pass as `cursor` for the next page; null on the last page' })),
  },
  { $id: 'LinkListResponse', additionalProperties: false },
);

const linkFields = {
  title: Type.String({ description: 'at most 200 characters' }),
  description: Type.String({ description: 'at most 2000 characters' }),
  visibility: Type.String({ description: '`public`, `private`, `secure` or `internal` (anyone signed in)' }),
  health_checks_disabled: Type.Boolean({ description: 'opt the link out of destination checks' }),
  tags: Type.Array(Type.String(), {
    description: 'at most 20 tag names; each at most 50 characters of letters, digits, spaces, `-` and `_`',
  }),
  aliases: Type.Array(Type.String(), {
    description: 'at most 10 more names, each following the slug rules; slugs and aliases of all links share one namespace',
  }),
  forward_path_and_query: Type.Boolean({
    description: 'append a visit’s extra path segments and query to the destination (default false)',
  }),
  default_url: Nullable(
    Type.String({
      description:
        'only beside `$name` placeholders in `url`: where a visit with no value goes instead of the fill-in page; the rules of `url`, without placeholders; null or empty = none',
    }),
  ),
};

export const CreateLinkSchema = Type.Object(
  {
    slug: Type.String({ description: SLUG_RULE_SUMMARY }),
    url: Type.String({ description: 'http(s) destination; may contain `$name` placeholders' }),
    title: Type.Optional(linkFields.title),
    description: Type.Optional(linkFields.description),
    visibility: Type.Optional(
      DocumentedEnum(['', ...VISIBILITIES], {
        description:
          '`public` (default when omitted or empty), `private`, `secure` or `internal` (anyone signed in); another value is 400 INVALID_VISIBILITY',
      }),
    ),
    expires_at: Type.Optional(Nullable(Timestamp('must be in the future; omitted or null = never expires'))),
    health_checks_disabled: Type.Optional(linkFields.health_checks_disabled),
    tags: Type.Optional(linkFields.tags),
    aliases: Type.Optional(linkFields.aliases),
    forward_path_and_query: Type.Optional(linkFields.forward_path_and_query),
    default_url: Type.Optional(linkFields.default_url),
  },
  { $id: 'CreateLinkRequest', description: 'Unknown fields are ignored.' },
);

/**
 * The fields of an update besides the ones that change only themselves
 * (`archived`, `health_checks_disabled`, `aliases`, `forward_path_and_query`, `default_url`);
 * any of them makes the body a full update.
 */
export const FULL_UPDATE_FIELDS = ['url', 'title', 'description', 'visibility', 'expires_at', 'tags'] as const;

export const UpdateLinkSchema = Type.Object(
  {
    url: Type.Optional(Type.String({ description: 'required unless the body holds only `archived` and/or `health_checks_disabled`' })),
    title: Type.Optional(Type.String({ description: 'replaced; omitted = empty' })),
    description: Type.Optional(Type.String({ description: 'replaced; omitted = empty' })),
    visibility: Type.Optional(
      DocumentedEnum(['', ...VISIBILITIES], {
        description: 'omitted or empty keeps the stored value; another value is 400 INVALID_VISIBILITY',
      }),
    ),
    expires_at: Type.Optional(Nullable(Timestamp('omitted keeps the stored value; null clears it; a new value must be in the future'))),
    archived: Type.Optional(Type.Boolean({ description: 'true archives (keeping the first archive time), false unarchives' })),
    health_checks_disabled: Type.Optional(linkFields.health_checks_disabled),
    tags: Type.Optional(Type.Array(Type.String(), { description: 'replaced; omitted = no tags' })),
    aliases: Type.Optional(
      Type.Array(Type.String(), { description: 'replaces every alias ([] removes them all); omitted keeps them; at most 10' }),
    ),
    forward_path_and_query: Type.Optional(Type.Boolean({ description: 'omitted keeps the stored value' })),
    default_url: Type.Optional(
      Nullable(
        Type.String({
          description:
            'omitted keeps the stored value; null or empty clears it; only beside `$name` placeholders in `url` (an update that leaves none while a default stays is refused)',
        }),
      ),
    ),
  },
  {
    $id: 'UpdateLinkRequest',
    description:
      'A body holding only `archived`, `health_checks_disabled`, `aliases`, `forward_path_and_query` and/or `default_url` changes just those. Any other field makes it a full update that needs `url`. `slug` and unknown fields are ignored.',
  },
);

export const EmailRequestFields = {
  email: Type.String({ description: 'email of an existing user, matched without regard to case or surrounding spaces' }),
};

/** A person by email or a group by name: exactly one of the two. */
const MemberRequestFields = {
  email: Type.Optional(EmailRequestFields.email),
  group: Type.Optional(Type.String({ description: 'name of a group (docs/groups.md); give this or `email`, not both' })),
};

export const AddOwnerSchema = Type.Object(MemberRequestFields, { $id: 'AddOwnerRequest' });

export const AddShareSchema = Type.Object(MemberRequestFields, { $id: 'AddShareRequest' });

export const ShareSchema = Type.Object(
  {
    link_id: Id('link id'),
    user_id: Id('recipient user id'),
    email: Type.String(),
    display_name: Type.String(),
    shared_by: Id('user id of the granter'),
    created_at: Timestamp(),
  },
  { $id: 'ShareResponse', additionalProperties: false },
);

export const SuggestLinksSchema = Type.Object(
  {
    suggestions: Type.Array(
      Type.Object({ slug: Type.String(), title: Type.String({ description: 'may be empty' }) }, { additionalProperties: false }),
    ),
  },
  { $id: 'SuggestLinksResponse', additionalProperties: false },
);

export const LinkHealthReportSchema = Type.Object(
  {
    links: Type.Array(
      Type.Object(
        {
          id: Id(),
          slug: Type.String(),
          url: Type.String(),
          owners: Type.Array(ref(OwnerSchema)),
          consecutive_failures: Type.Integer(),
          last_status: Nullable(Type.Integer()),
          last_checked_at: Nullable(Timestamp()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'LinkHealthReportResponse', additionalProperties: false },
);

/** Holds only when the two types are the same: a response schema and the resource it serialises. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const schemasMatchResources: [
  Same<Static<typeof LinkSchema>, LinkResource>,
  Same<Static<typeof OwnerSchema>, OwnerResource>,
  Same<Static<typeof HealthSchema>, HealthResource>,
  Same<Static<typeof ShareSchema>, ShareResource>,
] = [true, true, true, true];
void schemasMatchResources;
