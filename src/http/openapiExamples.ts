/**
 * Examples in the OpenAPI document (docs/api.md#openapi-and-swagger-ui): every path parameter,
 * every request body and the main answers carry one, so a mock server (Prism) answers with
 * realistic values and a contract tester (Dredd) can call each route from the document alone.
 * Kept here, by name, rather than in each route: one place to read them, and a test checks
 * each against its schema.
 */

const LINK_ID = '3f0c6c1e-8a0e-4d8e-9b8e-2a6f4b1c7d90';
const USER_ID = '8b1d2f3a-4c5e-4f60-8a7b-9c0d1e2f3a4b';
const GROUP_ID = '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b';
const AT = '2026-12-01T09:30:00.000Z';

/** An example value for each path parameter, by its name. */
export const PARAMETER_EXAMPLES: Readonly<Record<string, string>> = {
  id: LINK_ID,
  uid: USER_ID,
  name: 'platform',
  email: 'sam@example.com',
  event_id: '1f2e3d4c-5b6a-4978-8a6b-5c4d3e2f1a0b',
  slug: 'engineering-tools',
  delivery_id: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
};

const LINK = {
  id: LINK_ID,
  slug: 'handbook',
  url: 'https://example.com/handbook',
  title: 'Team handbook',
  description: 'Everything a new teammate reads in week one',
  visibility: 'public',
  expires_at: null,
  archived_at: null,
  lifecycle_state: 'active',
  tags: ['Docs', 'Onboarding'],
  aliases: ['hb'],
  forward_path_and_query: false,
  default_url: null,
  owners: [{ id: USER_ID, email: 'dana@example.com', is_primary: true }],
  created_at: AT,
  updated_at: AT,
  health: { status: 'ok', last_checked_at: AT, last_status: 200 },
  health_checks_disabled: false,
};

const GROUP = {
  id: GROUP_ID,
  name: 'platform',
  description: 'The platform team',
  managed_by_sign_in: false,
  created_at: AT,
  updated_at: AT,
};

/** An example for each named schema that has one, by its component name. */
export const SCHEMA_EXAMPLES: Readonly<Record<string, unknown>> = {
  CreateLinkRequest: {
    slug: 'handbook',
    url: 'https://example.com/handbook',
    title: 'Team handbook',
    tags: ['Docs', 'Onboarding'],
    visibility: 'public',
  },
  UpdateLinkRequest: { url: 'https://example.com/handbook/v2', title: 'Team handbook', tags: ['Docs'], visibility: 'public' },
  SuggestRequest: { url: 'https://example.com/handbook' },
  CreateTokenRequest: { name: 'ci', expires_at: '2027-12-31T00:00:00Z' },
  AddOwnerRequest: { email: 'sam@example.com' },
  AddShareRequest: { group: 'platform' },
  CreateGroupRequest: { name: 'platform', description: 'The platform team' },
  UpdateGroupRequest: { description: 'Everyone who keeps the build and the deploys running' },
  AddGroupMemberRequest: { email: 'sam@example.com', role: 'member' },
  SetGroupRoleRequest: { role: 'manager' },
  UpdateRoleRequest: { role: 'admin' },
  MarkNotificationsReadRequest: { all: true },
  UpdateNotificationPreferencesRequest: { email: { link_shared: true, link_changed: false } },
  CreateWebhookRequest: { url: 'https://hooks.example.com/joe-links', events: ['link.created', 'link.deleted'] },
  ErrorResponse: { error: 'link not found', code: 'NOT_FOUND' },
  LinkResponse: LINK,
  LinkListResponse: { links: [LINK], next_cursor: null },
  GroupDetailResponse: {
    ...GROUP,
    members: [{ id: USER_ID, email: 'dana@example.com', display_name: 'Dana', role: 'manager', added_at: AT }],
  },
  TokenCreatedResponse: {
    id: '7c6b5a49-3827-4160-9f8e-7d6c5b4a3928',
    name: 'ci',
    created_at: AT,
    expires_at: '2027-12-31T00:00:00.000Z',
    token: 'jl_EXAMPLEexampleEXAMPLEexampleEXAMPLEexample1',
  },
};

type Doc = {
  components?: { schemas?: Record<string, Record<string, unknown>> };
  paths?: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; example?: unknown }> }>>;
};

/** The document with the examples above written into it. */
export function withExamples<D extends object>(document: D): D {
  const doc = document as Doc;
  const schemas = doc.components?.schemas ?? {};
  for (const [name, example] of Object.entries(SCHEMA_EXAMPLES)) {
    const schema = schemas[name];
    if (schema) schema.example = example;
  }
  for (const ops of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(ops)) {
      for (const p of op.parameters ?? []) {
        const example = p.in === 'path' ? PARAMETER_EXAMPLES[p.name] : undefined;
        if (example !== undefined) p.example = example;
      }
    }
  }
  return document;
}
