import type { Generated } from 'kysely';

/**
 * Table shapes as the application sees them. Every timestamp is integer epoch
 * milliseconds in a BIGINT column on all three databases (docs/server.md#databases):
 * exact, sortable, free of timezone and precision drift. Booleans are 0/1.
 */
export interface UsersTable {
  id: string;
  provider: string;
  subject: string;
  email: string;
  display_name: string;
  display_name_slug: string;
  role: string;
  role_source: string;
  created_at: number;
  updated_at: number;
}

export interface SessionsTable {
  /** base64url(SHA-256) of the cookie's token (domain/secrets.ts sessionKey), never the token. */
  token: string;
  data: Buffer;
  expiry: number;
  /** The session's user (also in `data`); null only for rows no migration could read. */
  user_id: string | null;
}

export interface LinksTable {
  id: string;
  slug: string;
  url: string;
  title: string | null;
  description: string | null;
  visibility: string;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
  archived_at: number | null;
  health_checks_disabled: Generated<number>;
  /** 1: a visit's extra path and query are appended to the destination (docs/links.md#path-and-query-forwarding). */
  forward_path_and_query: Generated<number>;
  /** The slug without its hyphens, for golink's matching (migration 00029); null never after it ran. */
  slug_key: string | null;
  /** A templated link's destination when no value is given (docs/links.md#default-destination); null: none. */
  default_url: string | null;
}

/** Every name of every link, slug or alias, under one unique key (docs/links.md#aliases). */
export interface LinkNamesTable {
  name: string;
  link_id: string;
  /** 0: the link's slug (also in `links.slug`); 1: an alias. */
  is_alias: number;
}

export interface LinkOwnersTable {
  link_id: string;
  user_id: string;
  is_primary: number;
  created_at: number | null;
}

export interface TagsTable {
  id: string;
  name: string;
  slug: string;
  created_at: number;
}

export interface LinkTagsTable {
  link_id: string;
  tag_id: string;
}

export interface ApiTokensTable {
  id: string;
  user_id: string;
  name: string;
  token_hash: string;
  last_used_at: number | null;
  expires_at: number | null;
  created_at: number;
  revoked_at: number | null;
}

export interface KeywordsTable {
  id: string;
  keyword: string;
  url_template: string;
  description: string;
  created_at: number;
}

/** The first answer to a request sent with an Idempotency-Key (docs/api.md#safe-retries); `status` 0 while pending. */
export interface IdempotencyKeysTable {
  user_id: string;
  idem_key: string;
  request_hash: string;
  status: number;
  content_type: string;
  location: string | null;
  body: string;
  created_at: number;
}

/** A group (docs/groups.md); `synced` is 1 when the identity provider keeps its membership. */
export interface UserGroupsTable {
  id: string;
  name: string;
  description: string;
  synced: number;
  created_at: number;
  updated_at: number;
}

export interface GroupMembersTable {
  group_id: string;
  user_id: string;
  /** `member` or `manager`. */
  role: string;
  created_at: number;
}

/** A group that owns a link (`link_owner_groups`) or that a link is shared with (`link_share_groups`). */
export interface LinkGroupsTable {
  link_id: string;
  group_id: string;
  created_at: number;
}

export interface LinkSharesTable {
  link_id: string;
  user_id: string;
  shared_by: string;
  created_at: number;
}

export interface LinkClicksTable {
  id: string;
  link_id: string;
  user_id: string | null;
  ip_hash: string;
  user_agent: string | null;
  referrer: string | null;
  clicked_at: number;
}

export interface LinkHealthTable {
  link_id: string;
  last_checked_at: number | null;
  last_status: number | null;
  last_error: string | null;
  consecutive_failures: number;
  next_check_at: number | null;
  skipped: number;
}

export interface SettingsTable {
  name: string;
  value: string;
}

export interface LoginTokensTable {
  id: string;
  user_id: string;
  token_hash: string;
  expires_at: number;
  created_at: number;
  used_at: number | null;
}

export interface JobLeasesTable {
  name: string;
  holder: string;
  expires_at: number;
  last_run_at: number | null;
}

export interface StateLinksTable {
  id: string;
  payload: string;
  payload_sha256: string;
  payload_bytes: number;
  created_at: number;
  expires_at: number | null;
}

/** Click counts per link, run of closed UTC days and dimension (see migrations/analytics.ts). */
export interface LinkClickRollupsTable {
  link_id: string;
  day: number;
  span: number;
  dim: string;
  dim_key: string;
  clicks: number;
}

/** Referrer hosts per closed UTC day across all links. */
export interface ClickReferrerRollupsTable {
  day: number;
  host: string;
  clicks: number;
}

/** Which days and runs are rolled up, under which classification, from which counts or parts. */
export interface LinkClickRollupSpansTable {
  day: number;
  span: number;
  version: string;
  clicks: number;
  authenticated: number;
  source: string;
  rolled_at: number;
}

/** Closed days whose rows changed since they were rolled up, one row per mark (see migrations/analytics.ts). */
export interface ClickRollupDirtyDaysTable {
  day: number;
  mark_id: string;
}

/** One link event (see migrations/history.ts); `data` is the event's own fields as JSON. */
export interface LinkEventsTable {
  seq: Generated<number>;
  id: string;
  link_id: string;
  slug: string;
  kind: string;
  at: number;
  via: string | null;
  actor_id: string | null;
  actor_email: string | null;
  actor_name: string | null;
  data: string;
}

/** One thing a user is told about a link (docs/notifications.md#what-you-are-notified-about). */
export interface NotificationsTable {
  id: string;
  user_id: string;
  kind: string;
  link_id: string;
  link_slug: string;
  /** JSON: the actor and what the notification is about (domain/notifications.ts NotificationDetail). */
  detail: string;
  created_at: number;
  read_at: number | null;
  /** none | pending | sent | failed */
  mail_state: string;
  mailed_at: number | null;
}

/** A user's mail choice for one notification kind; no row means the default (mail on). */
export interface NotificationPreferencesTable {
  user_id: string;
  kind: string;
  email: number;
}

export interface WebhooksTable {
  id: string;
  url: string;
  /** JSON array of event types, or ["*"]. */
  events: string;
  /** `whsec_` + base64 of the signing key. */
  secret: string;
  created_at: number;
}

/** A durable delivery: a mail (user_id) or a webhook call (webhook_id). */
export interface OutboxTable {
  id: string;
  channel: string;
  user_id: string | null;
  webhook_id: string | null;
  message_id: string;
  event_type: string;
  payload: string;
  /** pending | delivered | failed | skipped */
  status: string;
  attempts: number;
  next_attempt_at: number;
  claimed_until: number | null;
  created_at: number;
  finished_at: number | null;
  last_status: number | null;
  last_error: string | null;
}

export interface OutboxAttemptsTable {
  id: string;
  outbox_id: string;
  attempt: number;
  at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** Expiry values already announced, per stage (`expiring` to owners, `expired` to webhooks). */
export interface ExpiryNoticesTable {
  link_id: string;
  stage: string;
  expires_at: number;
  created_at: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  links: LinksTable;
  link_owners: LinkOwnersTable;
  link_names: LinkNamesTable;
  tags: TagsTable;
  link_tags: LinkTagsTable;
  api_tokens: ApiTokensTable;
  keywords: KeywordsTable;
  link_shares: LinkSharesTable;
  user_groups: UserGroupsTable;
  idempotency_keys: IdempotencyKeysTable;
  group_members: GroupMembersTable;
  link_owner_groups: LinkGroupsTable;
  link_share_groups: LinkGroupsTable;
  link_clicks: LinkClicksTable;
  link_click_rollups: LinkClickRollupsTable;
  click_referrer_rollups: ClickReferrerRollupsTable;
  link_click_rollup_spans: LinkClickRollupSpansTable;
  click_rollup_dirty_days: ClickRollupDirtyDaysTable;
  link_health: LinkHealthTable;
  settings: SettingsTable;
  login_tokens: LoginTokensTable;
  job_leases: JobLeasesTable;
  state_links: StateLinksTable;
  link_events: LinkEventsTable;
  notifications: NotificationsTable;
  notification_preferences: NotificationPreferencesTable;
  webhooks: WebhooksTable;
  outbox: OutboxTable;
  outbox_attempts: OutboxAttemptsTable;
  expiry_notices: ExpiryNoticesTable;
}
