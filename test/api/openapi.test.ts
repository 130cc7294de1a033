import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ERROR_STATUS } from '../../src/domain/errors.js';
import { formatOpenApiDocument, generateOpenApiDocument } from '../../src/openapiDocument.js';
import { get, type TestServer } from '../helpers/server.js';
import { startApi } from './support.js';
import { ROOT } from '../helpers/paths.js';

const COMMITTED = join(ROOT, 'docs', 'openapi.json');
const TAG_GROUPS = [
  'Links',
  'Owners',
  'Shares',
  'Groups',
  'Stats',
  'Analytics',
  'Tags',
  'Tokens',
  'Users',
  'Notifications',
  'Admin',
  'Webhooks',
  'Config',
  'Keywords',
];
const PUBLIC_OPERATIONS = new Set(['GET /config', 'GET /keywords']);
/** The error codes of docs/api.md#errors. */
const SPEC_CODES = [
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'BAD_REQUEST',
  'METHOD_NOT_ALLOWED',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'INTERNAL_ERROR',
  'INVALID_SLUG',
  'INVALID_URL',
  'INVALID_FIELD_LENGTH',
  'INVALID_VISIBILITY',
  'INVALID_TAG_NAME',
  'TOO_MANY_TAGS',
  'INVALID_EXPIRES_AT',
  'SLUG_CONFLICT',
  'INVALID_ALIAS',
  'TOO_MANY_ALIASES',
  'ALIAS_CONFLICT',
  'DB_BUSY',
  'UNAVAILABLE',
  'RATE_LIMITED',
  'PAYLOAD_TOO_LARGE',
  'TAG_WRITE_FAILED',
  'DUPLICATE_OWNER',
  'DUPLICATE_SHARE',
  'INVALID_GROUP_NAME',
  'GROUP_CONFLICT',
  'DUPLICATE_MEMBER',
  'LAST_MANAGER',
  'GROUP_SYNCED',
  'PRIMARY_OWNER_PROTECTED',
  'NOT_RESTORABLE',
  'RESTORE_CONFLICT',
  'PRECONDITION_FAILED',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
  'LLM_NOT_CONFIGURED',
  'LLM_ERROR',
];

type Doc = {
  openapi: string;
  info: { title: string; version: string; description: string; license?: { name: string } };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Record<string, unknown>>;
    securitySchemes: Record<string, Record<string, unknown>>;
    headers: Record<string, { description: string; schema: { type: string } }>;
  };
};
type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ in: string; name: string }>;
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }>; headers?: Record<string, { $ref?: string }> }>;
};

describe('OpenAPI document and Swagger UI (docs/api.md#openapi-and-swagger-ui)', () => {
  let s: TestServer;
  let doc: Doc;
  before(async () => {
    s = await startApi();
    const r = await get(`${s.url}/api/docs/swagger.json`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    doc = JSON.parse(await r.text());
  });
  after(async () => s.stop());

  test('the committed docs/openapi.json is what the routes generate', async () => {
    const fresh = formatOpenApiDocument(await generateOpenApiDocument());
    const committed = readFileSync(COMMITTED, 'utf8');
    assert.ok(fresh === committed, 'docs/openapi.json is stale: run `npm run openapi` and commit docs/openapi.json');
  });

  test('adding an /api/v1 route changes the generated document, so a stale copy cannot pass', async () => {
    const changed = await generateOpenApiDocument({
      extend: (api) => api.get('/zz-new-route', { schema: { summary: 'new', tags: ['Links'] } }, async () => ({})),
    });
    assert.ok('/zz-new-route' in (changed.paths as object));
    assert.notEqual(formatOpenApiDocument(changed), readFileSync(COMMITTED, 'utf8'));
  });

  test('the served document is the generated one, and its paths are exactly the registered /api/v1 routes', async () => {
    assert.deepEqual(doc, JSON.parse(readFileSync(COMMITTED, 'utf8')));
    const routes = new Set(
      s.app.registeredRoutes
        .filter((u) => u.startsWith('/api/v1/') && !u.includes('*'))
        .map((u) => u.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}')),
    );
    assert.deepEqual(new Set(Object.keys(doc.paths)), routes);
  });

  test('it is served at /api/openapi.json too, the same document', async () => {
    const r = await get(`${s.url}/api/openapi.json`);
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(await r.text()), doc);
  });

  test('operation ids are unique, and every response names the rate-limit headers a real response carries', async () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    assert.equal(new Set(ids).size, ids.length, 'unique operationIds');
    const names = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
    for (const name of [...names, 'Retry-After']) assert.equal(doc.components.headers[name]?.schema.type, 'integer', name);
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          const declared = Object.keys(response.headers ?? {});
          for (const name of names) assert.ok(declared.includes(name), `${method} ${path} ${status} ${name}`);
          assert.equal(declared.includes('Retry-After'), status === '429', `${method} ${path} ${status} Retry-After`);
        }
      }
    }
    // What the document promises, a real answer sends (names are case-insensitive in HTTP).
    const limited = await startApi({ env: { JOE_API_RATE_LIMIT: '100' } });
    try {
      const r = await get(`${limited.url}/api/v1/keywords`);
      assert.equal(r.status, 200);
      for (const name of names) assert.match(r.headers.get(name) ?? '', /^\d+$/, name);
    } finally {
      await limited.stop();
    }
  });

  test('each error response names only codes of its own status, and conflicts name what the route really answers', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          const named = /\(([A-Z_, ]+)\)/.exec((response as { description?: string }).description ?? '')?.[1];
          for (const code of named?.split(', ') ?? []) {
            assert.equal(ERROR_STATUS[code as keyof typeof ERROR_STATUS], Number(status), `${method} ${path} ${status} names ${code}`);
          }
        }
      }
    }
    const conflict = (path: string, method: string) => (doc.paths[path]![method]!.responses['409'] as { description: string }).description;
    assert.match(conflict('/links', 'post'), /SLUG_CONFLICT.*ALIAS_CONFLICT/);
    assert.match(conflict('/links/{id}/history/{event_id}/restore', 'post'), /RESTORE_CONFLICT/);
    assert.match(conflict('/groups/{name}/members', 'post'), /DUPLICATE_MEMBER/);
    assert.doesNotMatch(conflict('/links/{id}/owners', 'post'), /SLUG_CONFLICT/);
  });

  test('closed lists are enums: request visibility, the event kind filter and the import tool', () => {
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, { enum?: string[] }> }>;
    for (const name of ['CreateLinkRequest', 'UpdateLinkRequest']) {
      assert.deepEqual(schemas[name]!.properties.visibility!.enum, ['', 'public', 'private', 'secure', 'internal'], name);
    }
    const param = (path: string, method: string, name: string) =>
      (doc.paths[path]![method]!.parameters as unknown as Array<{ name: string; schema: { enum?: string[] } }>).find(
        (p) => p.name === name,
      )!.schema.enum;
    assert.ok(param('/admin/events', 'get', 'kind')!.includes('group_share_added'));
    assert.ok(param('/links/import', 'post', 'from')!.includes('golink'));
    assert.ok(param('/links/import', 'post', 'from')!.includes('shlink-csv'));
  });

  test('info, server and the BearerToken scheme are as specified', () => {
    assert.match(doc.openapi, /^3\.0\./);
    assert.equal(doc.info.title, 'joe-links API');
    assert.equal(doc.info.version, '1.0');
    assert.match(doc.info.description, /personal access token/i);
    assert.deepEqual(doc.servers, [{ url: '/api/v1' }]);
    assert.equal(doc.info.license?.name, 'MIT');
    const scheme = doc.components.securitySchemes.BearerToken!;
    assert.equal(scheme.type, 'http');
    assert.equal(scheme.scheme, 'bearer');
    assert.match(String(scheme.description), /Authorization: Bearer jl_/);
  });

  test('every operation has a summary, one tag group, its security and documented error bodies', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method.toUpperCase()} ${path}`;
        assert.ok(op.summary && op.summary.length > 5, `${key} summary`);
        assert.equal(op.tags?.length, 1, `${key} tags`);
        assert.ok(TAG_GROUPS.includes(op.tags![0]!), `${key} tag ${op.tags}`);
        assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${key} operationId`);
        if (PUBLIC_OPERATIONS.has(key)) assert.deepEqual(op.security, [], `${key} is public`);
        else assert.deepEqual(op.security, [{ BearerToken: [] }], `${key} security`);
        for (const name of path.match(/\{(\w+)\}/g) ?? []) {
          assert.ok(
            op.parameters?.some((p) => p.in === 'path' && `{${p.name}}` === name),
            `${key} documents ${name}`,
          );
        }
        const statuses = Object.keys(op.responses);
        assert.ok(
          statuses.some((c) => /^2\d\d$/.test(c)),
          `${key} has a success response`,
        );
        if (!PUBLIC_OPERATIONS.has(key)) assert.ok(statuses.includes('401'), `${key} documents 401`);
        assert.ok(statuses.includes('429'), `${key} documents 429`);
        for (const [code, response] of Object.entries(op.responses)) {
          if (Number(code) < 400) continue;
          assert.equal(response.content?.['application/json']?.schema.$ref, '#/components/schemas/ErrorResponse', `${key} ${code}`);
        }
      }
    }
  });

  test('named schemas exist, with the error codes of docs/api.md#errors and a nullable expiry on updates', () => {
    for (const name of [
      'CreateLinkRequest',
      'UpdateLinkRequest',
      'LinkResponse',
      'LinkListResponse',
      'HealthResponse',
      'OwnerResponse',
      'AddOwnerRequest',
      'AddShareRequest',
      'ShareResponse',
      'TagResponse',
      'TagListResponse',
      'UserResponse',
      'UserListResponse',
      'UpdateRoleRequest',
      'CreateTokenRequest',
      'TokenResponse',
      'TokenCreatedResponse',
      'TokenListResponse',
      'ErrorResponse',
      'ConfigResponse',
      'SuggestLinksResponse',
    ]) {
      assert.ok(doc.components.schemas[name], `${name} is a named schema`);
    }
    const codes = (doc.components.schemas.ErrorResponse as { properties: { code: { enum: string[] } } }).properties.code.enum;
    assert.deepEqual([...codes].sort(), [...SPEC_CODES].sort());
    assert.deepEqual(Object.keys(ERROR_STATUS).sort(), [...SPEC_CODES].sort(), 'the code table of the application is the specified one');
    const expires = (doc.components.schemas.UpdateLinkRequest as { properties: Record<string, Record<string, unknown>> }).properties
      .expires_at!;
    assert.equal(expires.format, 'date-time');
    assert.equal(expires.nullable, true);
    const link = doc.components.schemas.LinkResponse as { properties: Record<string, unknown>; required: string[] };
    assert.ok(!link.required.includes('health') && !link.required.includes('health_checks_disabled'), 'health keys are optional');
  });

  test('Swagger UI is served from this origin, with no inline script, and its assets load', async () => {
    const redirect = await get(`${s.url}/api/docs`);
    assert.ok([301, 302].includes(redirect.status));
    assert.equal(redirect.headers.get('location'), '/api/docs/');
    const page = await get(`${s.url}/api/docs/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length >= 3);
    for (const [, attrs, body] of scripts) {
      assert.match(attrs!, /src="\.\/static\//, 'every script is a file of ours');
      assert.equal(body!.trim(), '', 'no inline script (a strict Content-Security-Policy stays possible)');
    }
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.length > 0);
    for (const asset of assets) {
      assert.ok(!/^(https?:)?\/\//.test(asset), `${asset} is not on a third-party origin`);
      const r = await get(new URL(asset, `${s.url}/api/docs/`).href);
      assert.equal(r.status, 200, asset);
    }
    const init = await (await get(`${s.url}/api/docs/static/swagger-initializer.js`)).text();
    const code = init.replace(/^\s*\/\/.*$/gm, '');
    assert.ok(!/https?:\/\//.test(code), 'the initializer fetches nothing remote');
    assert.match(code, /validatorUrl: null/, 'and does not ask the public validator about our document');
    const json = await get(`${s.url}/api/docs/json`);
    assert.equal(json.status, 200, 'the document the UI loads');
  });
});
