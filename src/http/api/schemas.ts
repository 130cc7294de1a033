import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { BROWSER_FAMILIES, OS_FAMILIES } from '../../domain/userAgent.js';
import type { HealthResource, LinkResource, OwnerResource, ShareResource } from '../../links/index.js';
import { ApiErrorSchema } from './errors.js';
import { HISTORY_SCHEMAS } from './historySchemas.js';
import { NOTIFY_SCHEMAS } from './notifySchemas.js';
import { Nullable, ref, StringEnum, Timestamp } from './schemaRef.js';
import { UserSchema } from './users.js';

/**
 * The named resource and request schemas of the REST API
 * (docs/api.md#the-link-resource, docs/links.md#field-validation, docs/api.md#openapi-and-swagger-ui). Request schemas check shapes only: the domain validators decide
 * slugs, URLs, lengths, tags, visibility and expiry, so those keep their own
 * error codes. Response schemas list every field a client may see; Fastify
 * serialises through them, so anything else on the object never leaves the
 * server.
 */

const id = (description?: string) => Type.String({ description: description ?? 'UUID' });

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
    id: id('user id'),
    email: Type.String(),
    is_primary: Type.Boolean(),
  },
  { $id: 'OwnerResponse', additionalProperties: false },
);

export const LinkSchema = Type.Object(
  {
    id: id(),
    slug: Type.String(),
    url: Type.String({ description: 'the stored destination; `$variable` placeholders are returned untouched' }),
    title: Type.String(),
    description: Type.String(),
    visibility: StringEnum(['public', 'private', 'secure']),
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
  visibility: Type.String({ description: '`public`, `private` or `secure`' }),
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
};

export const CreateLinkSchema = Type.Object(
  {
    slug: Type.String({ description: 'lower-case letters, digits and inner hyphens; at most 128 characters; not reserved' }),
    url: Type.String({ description: 'http(s) destination; may contain `$name` placeholders' }),
    title: Type.Optional(linkFields.title),
    description: Type.Optional(linkFields.description),
    visibility: Type.Optional(Type.String({ description: '`public` (default when omitted or empty), `private` or `secure`' })),
    expires_at: Type.Optional(Nullable(Timestamp('must be in the future; omitted or null = never expires'))),
    health_checks_disabled: Type.Optional(linkFields.health_checks_disabled),
    tags: Type.Optional(linkFields.tags),
    aliases: Type.Optional(linkFields.aliases),
    forward_path_and_query: Type.Optional(linkFields.forward_path_and_query),
  },
  { $id: 'CreateLinkRequest', description: 'Unknown fields are ignored.' },
);

/**
 * The fields of an update besides the ones that change only themselves
 * (`archived`, `health_checks_disabled`, `aliases`, `forward_path_and_query`);
 * any of them makes the body a full update.
 */
export const FULL_UPDATE_FIELDS = ['url', 'title', 'description', 'visibility', 'expires_at', 'tags'] as const;

export const UpdateLinkSchema = Type.Object(
  {
    url: Type.Optional(Type.String({ description: 'required unless the body holds only `archived` and/or `health_checks_disabled`' })),
    title: Type.Optional(Type.String({ description: 'replaced; omitted = empty' })),
    description: Type.Optional(Type.String({ description: 'replaced; omitted = empty' })),
    visibility: Type.Optional(Type.String({ description: 'omitted or empty keeps the stored value' })),
    expires_at: Type.Optional(Nullable(Timestamp('omitted keeps the stored value; null clears it; a new value must be in the future'))),
    archived: Type.Optional(Type.Boolean({ description: 'true archives (keeping the first archive time), false unarchives' })),
    health_checks_disabled: Type.Optional(linkFields.health_checks_disabled),
    tags: Type.Optional(Type.Array(Type.String(), { description: 'replaced; omitted = no tags' })),
    aliases: Type.Optional(
      Type.Array(Type.String(), { description: 'replaces every alias ([] removes them all); omitted keeps them; at most 10' }),
    ),
    forward_path_and_query: Type.Optional(Type.Boolean({ description: 'omitted keeps the stored value' })),
  },
  {
    $id: 'UpdateLinkRequest',
    description:
      'A body holding only `archived`, `health_checks_disabled`, `aliases` and/or `forward_path_and_query` changes just those. Any other field makes it a full update that needs `url`. `slug` and unknown fields are ignored.',
  },
);

export const EmailRequestFields = {
  email: Type.String({ description: 'email of an existing user, matched without regard to case or surrounding spaces' }),
};
export const AddOwnerSchema = Type.Object(EmailRequestFields, { $id: 'AddOwnerRequest' });
export const AddShareSchema = Type.Object(EmailRequestFields, { $id: 'AddShareRequest' });

export const ShareSchema = Type.Object(
  {
    link_id: id('link id'),
    user_id: id('recipient user id'),
    email: Type.String(),
    display_name: Type.String(),
    shared_by: id('user id of the granter'),
    created_at: Timestamp(),
  },
  { $id: 'ShareResponse', additionalProperties: false },
);

export const TagSchema = Type.Object(
  {
    slug: Type.String(),
    name: Type.String(),
    link_count: Type.Integer({ description: 'links carrying the tag that the caller may see' }),
  },
  { $id: 'TagResponse', additionalProperties: false },
);

export const TagListSchema = Type.Object(
  { tags: Type.Array(ref(TagSchema)), next_cursor: Nullable(Type.String()) },
  { $id: 'TagListResponse', additionalProperties: false },
);

export const UserListSchema = Type.Object(
  { users: Type.Array(ref(UserSchema)), next_cursor: Nullable(Type.String()) },
  { $id: 'UserListResponse', additionalProperties: false },
);

export const UpdateRoleSchema = Type.Object({ role: StringEnum(['user', 'admin']) }, { $id: 'UpdateRoleRequest' });

export const CreateTokenSchema = Type.Object(
  {
    name: Type.String({ description: 'a label, e.g. `ci`' }),
    expires_at: Type.Optional(Nullable(Timestamp('omitted or null = never expires'))),
  },
  { $id: 'CreateTokenRequest' },
);

const tokenFields = {
  id: id(),
  name: Type.String(),
  created_at: Timestamp(),
};

export const TokenSchema = Type.Object(
  {
    ...tokenFields,
    last_used_at: Type.Optional(Timestamp('omitted when never used')),
    expires_at: Type.Optional(Timestamp('omitted when the token never expires')),
  },
  { $id: 'TokenResponse', additionalProperties: false },
);

export const TokenCreatedSchema = Type.Object(
  {
    ...tokenFields,
    expires_at: Type.Optional(Timestamp('omitted when the token never expires')),
    token: Type.String({ description: 'the plaintext `jl_…` token; shown only in this response' }),
  },
  { $id: 'TokenCreatedResponse', additionalProperties: false },
);

export const TokenListSchema = Type.Object(
  { tokens: Type.Array(ref(TokenSchema)) },
  { $id: 'TokenListResponse', additionalProperties: false },
);

export const ConfigSchema = Type.Object(
  { short_keyword: Type.String({ description: 'the prefix people type before slugs, e.g. `go`' }) },
  { $id: 'ConfigResponse', additionalProperties: false },
);

export const SuggestLinksSchema = Type.Object(
  {
    suggestions: Type.Array(
      Type.Object({ slug: Type.String(), title: Type.String({ description: 'may be empty' }) }, { additionalProperties: false }),
    ),
  },
  { $id: 'SuggestLinksResponse', additionalProperties: false },
);

export const KeywordTemplateSchema = Type.Object(
  {
    keyword: Type.String(),
    url_template: Type.String({ description: 'contains `{slug}`' }),
  },
  { $id: 'KeywordTemplateResponse', additionalProperties: false },
);

export const LinkHealthReportSchema = Type.Object(
  {
    links: Type.Array(
      Type.Object(
        {
          id: id(),
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

export const LinkExportRecordSchema = Type.Object(
  {
    slug: Type.String(),
    url: Type.String(),
    title: Type.String(),
    description: Type.String(),
    visibility: Type.String(),
    tags: Type.Array(Type.String(), { description: 'tag names' }),
    owners: Type.Array(Type.String(), { description: 'owner emails, primary first' }),
    expires_at: Nullable(Timestamp()),
    archived_at: Nullable(Timestamp()),
    health_checks_disabled: Type.Boolean(),
    aliases: Type.Array(Type.String(), { description: 'the link’s other names, sorted' }),
    forward_path_and_query: Type.Boolean(),
    created_at: Timestamp(),
  },
  { $id: 'LinkExportRecord', description: 'One line of the JSON Lines link export.' },
);

// ---------------------------------------------------------------- imports (docs/api.md#importing-from-other-tools)

const ImportAction = StringEnum(['created', 'updated', 'skipped', 'refused']);

export const ImportReportSchema = Type.Object(
  {
    format: Type.String({ description: 'the format read (named with `from` or detected)' }),
    dry_run: Type.Boolean(),
    rows: Type.Array(
      Type.Object({
        line: Type.Integer({ description: 'line of the file (position in the list, for JSON documents)' }),
        slug: Type.Optional(Type.String({ description: 'the slug here' })),
        written: Type.Optional(Type.String({ description: 'the name as the file wrote it, when it differs' })),
        action: ImportAction,
        reason: Type.Optional(Type.String({ description: 'why the row was refused; `unchanged` for a skipped one' })),
        changes: Type.Optional(Type.Array(Type.String(), { description: 'fields an update changes' })),
        notes: Type.Array(Type.String()),
        source_clicks: Type.Optional(Type.Integer({ description: 'the source tool’s click count (never stored)' })),
      }),
      { description: 'one entry per row, in file order' },
    ),
    summary: Type.Object({
      format: Type.String(),
      dry_run: Type.Boolean(),
      rows: Type.Integer(),
      created: Type.Integer(),
      updated: Type.Integer(),
      skipped: Type.Integer(),
      refused: Type.Integer(),
      source_clicks: Type.Integer({ description: 'clicks the source counted for the links imported' }),
    }),
  },
  { $id: 'ImportReport', description: 'What an import did (or would do, in a dry run) to each row of the file.' },
);

// ---------------------------------------------------------------- click analytics (docs/analytics.md#per-link-stats, docs/analytics.md#daily-series, docs/analytics.md#breakdowns, docs/analytics.md#csv-export, docs/analytics.md#dashboard)
// Every field is listed with additionalProperties: false, so the serialiser drops anything
// else the store returns (day starts, no-data flags, clicker ids without CanManageShares).

export const LinkStatsSchema = Type.Object(
  {
    link_id: id('link id'),
    total: Type.Integer({ description: 'every retained click (with click retention on, only those within the retention window)' }),
    last_7d: Type.Integer({ description: 'clicks with clicked_at ≥ now − 7 days' }),
    last_30d: Type.Integer({ description: 'clicks with clicked_at ≥ now − 30 days' }),
  },
  { $id: 'LinkStatsResponse', additionalProperties: false },
);

export const ClickListSchema = Type.Object(
  {
    clicks: Type.Array(
      Type.Object(
        {
          clicked_at: Timestamp(),
          referrer: Nullable(Type.String({ description: 'stored referrer, query string and fragment removed; null when absent' })),
          user: Nullable(
            Type.Object(
              { id: id('user id'), display_name: Type.String() },
              {
                additionalProperties: false,
                description: 'the clicker; null for anonymous clicks and for every click unless the caller holds CanManageShares',
              },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'newest first by (clicked_at, id)' },
    ),
    next_cursor: Nullable(Type.String({ description: 'pass as `before` for the next page; null on the last page' })),
  },
  { $id: 'ClickListResponse', additionalProperties: false },
);

const windowDays = Type.Integer({ description: 'the window in UTC days: 30 or 90' });
const hostCount = Type.Object(
  {
    host: Type.String({ description: 'referrer host, `Direct / unknown`, or `Other` summing the hosts below the top 10' }),
    count: Type.Integer(),
  },
  { additionalProperties: false },
);

export const TimeSeriesSchema = Type.Object(
  {
    link_id: id('link id'),
    days: windowDays,
    series: Type.Array(
      Type.Object(
        { date: Type.String({ format: 'date', description: 'UTC calendar day, YYYY-MM-DD' }), count: Type.Integer() },
        { additionalProperties: false },
      ),
      { description: 'exactly `days` entries, ascending, ending today (UTC), zero-filled; days before a retention horizon read 0' },
    ),
  },
  { $id: 'TimeSeriesResponse', additionalProperties: false },
);

const familyCount = <T extends readonly string[]>(families: T) =>
  Type.Object({ name: StringEnum(families), count: Type.Integer() }, { additionalProperties: false });

export const BreakdownsSchema = Type.Object(
  {
    link_id: id('link id'),
    days: windowDays,
    referrers: Type.Array(hostCount, { description: 'top 10 hosts by count (ties by name), then one `Other` row' }),
    browsers: Type.Array(familyCount(BROWSER_FAMILIES)),
    os: Type.Array(familyCount(OS_FAMILIES)),
    auth: Type.Object(
      { authenticated: Type.Integer({ description: 'clicks by signed-in users' }), anonymous: Type.Integer() },
      { additionalProperties: false },
    ),
  },
  { $id: 'BreakdownsResponse', additionalProperties: false, description: 'Counts only: nothing here identifies a clicker.' },
);

export const AnalyticsSchema = Type.Object(
  {
    period: StringEnum(['week', 'month']),
    scope: StringEnum(['mine', 'all']),
    top_links: Type.Array(
      Type.Object(
        {
          link_id: id('link id'),
          slug: Type.String(),
          count: Type.Integer({ description: 'clicks in the period' }),
          previous_count: Type.Integer({ description: 'clicks in the equal-length period before it' }),
          trend_pct: Nullable(
            Type.Number({ description: '100 × (count − previous_count) / previous_count; null ("new") when previous_count is 0' }),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'the 10 most-clicked links of the period' },
    ),
    never_clicked: Type.Array(
      Type.Object({ link_id: id('link id'), slug: Type.String(), created_at: Timestamp() }, { additionalProperties: false }),
      { description: 'links created at least 7 days ago with no recorded click, newest first, at most 10' },
    ),
    top_referrers: Type.Array(hostCount, { description: 'busiest referrer hosts of the period (top 10 plus `Other`)' }),
  },
  { $id: 'AnalyticsResponse', additionalProperties: false, description: 'Aggregate counts only; no clicker identities.' },
);

/** Every named schema, in the order the OpenAPI document lists them. */
export const NAMED_SCHEMAS: readonly TSchema[] = [
  ApiErrorSchema,
  ImportReportSchema,
  ConfigSchema,
  KeywordTemplateSchema,
  UserSchema,
  UserListSchema,
  UpdateRoleSchema,
  TokenSchema,
  TokenCreatedSchema,
  TokenListSchema,
  CreateTokenSchema,
  HealthSchema,
  OwnerSchema,
  LinkSchema,
  LinkListSchema,
  CreateLinkSchema,
  UpdateLinkSchema,
  SuggestLinksSchema,
  AddOwnerSchema,
  AddShareSchema,
  ShareSchema,
  TagSchema,
  TagListSchema,
  LinkHealthReportSchema,
  LinkExportRecordSchema,
  LinkStatsSchema,
  ClickListSchema,
  TimeSeriesSchema,
  BreakdownsSchema,
  AnalyticsSchema,
  ...HISTORY_SCHEMAS,
  ...NOTIFY_SCHEMAS,
];

/** Holds only when the two types are the same: a response schema and the resource it serialises. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemasMatchResources: [
  Same<Static<typeof LinkSchema>, LinkResource>,
  Same<Static<typeof OwnerSchema>, OwnerResource>,
  Same<Static<typeof HealthSchema>, HealthResource>,
  Same<Static<typeof ShareSchema>, ShareResource>,
] = [true, true, true, true];
void schemasMatchResources;

export { iso, isoOrNull } from '../../links/index.js';
