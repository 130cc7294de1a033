import type { TSchema } from '@sinclair/typebox';
import { ApiErrorSchema } from '../errors.js';
import { AnalyticsSchema, BreakdownsSchema, ClickListSchema, LinkStatsSchema, TimeSeriesSchema } from './analytics.js';
import { ConfigSchema } from './config.js';
import { AuditEventSchema, AuditPageSchema, HistoryEventSchema, HistoryPageSchema, PersonSchema } from './history.js';
import { KeywordTemplateSchema } from './keywords.js';
import {
  AddOwnerSchema,
  AddShareSchema,
  CreateLinkSchema,
  HealthSchema,
  LinkHealthReportSchema,
  LinkListSchema,
  LinkSchema,
  OwnerSchema,
  ShareSchema,
  SuggestLinksSchema,
  UpdateLinkSchema,
} from './links.js';
import {
  EventActorSchema,
  MarkReadResultSchema,
  MarkReadSchema,
  NotificationListSchema,
  NotificationPreferencesSchema,
  NotificationSchema,
  UpdateNotificationPreferencesSchema,
} from './notifications.js';
import {
  AddGroupMemberSchema,
  CreateGroupSchema,
  GroupDetailSchema,
  GroupListSchema,
  GroupMemberSchema,
  GroupOwnerSchema,
  GroupSchema,
  GroupShareSchema,
  SetGroupRoleSchema,
  UpdateGroupSchema,
} from './groups.js';
import { TagListSchema, TagSchema } from './tags.js';
import { CreateTokenSchema, TokenCreatedSchema, TokenListSchema, TokenSchema } from './tokens.js';
import { ImportReportSchema, LinkExportRecordSchema } from './transfer.js';
import { UpdateRoleSchema, UserDeletionSchema, UserListSchema, UserSchema } from './users.js';
import {
  CreateWebhookSchema,
  DeliveryAttemptSchema,
  DeliveryListSchema,
  DeliverySchema,
  WebhookCreatedSchema,
  WebhookListSchema,
  WebhookSchema,
} from './webhooks.js';

/**
 * The named schemas of the REST API, one module per resource beside this one
 * (docs/api.md#openapi-and-swagger-ui). Each is registered with `addSchema` and becomes
 * `#/components/schemas/<$id>` in the OpenAPI document; `ref()` points at them.
 */

/** Every named schema, in the order the OpenAPI document lists them. */
export const NAMED_SCHEMAS: readonly TSchema[] = [
  ApiErrorSchema,
  ImportReportSchema,
  ConfigSchema,
  KeywordTemplateSchema,
  UserSchema,
  UserListSchema,
  UpdateRoleSchema,
  UserDeletionSchema,
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
  GroupOwnerSchema,
  GroupShareSchema,
  GroupSchema,
  GroupMemberSchema,
  GroupDetailSchema,
  GroupListSchema,
  CreateGroupSchema,
  UpdateGroupSchema,
  AddGroupMemberSchema,
  SetGroupRoleSchema,
  TagSchema,
  TagListSchema,
  LinkHealthReportSchema,
  LinkExportRecordSchema,
  LinkStatsSchema,
  ClickListSchema,
  TimeSeriesSchema,
  BreakdownsSchema,
  AnalyticsSchema,
  PersonSchema,
  HistoryEventSchema,
  HistoryPageSchema,
  AuditEventSchema,
  AuditPageSchema,
  EventActorSchema,
  NotificationSchema,
  NotificationListSchema,
  MarkReadSchema,
  MarkReadResultSchema,
  NotificationPreferencesSchema,
  UpdateNotificationPreferencesSchema,
  CreateWebhookSchema,
  WebhookSchema,
  WebhookCreatedSchema,
  WebhookListSchema,
  DeliveryAttemptSchema,
  DeliverySchema,
  DeliveryListSchema,
];
