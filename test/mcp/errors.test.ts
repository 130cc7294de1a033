import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError, ERROR_STATUS, type ErrorCode } from '../../src/domain/errors.js';
import { INTERNAL_MESSAGE, ToolError, toToolError } from '../../src/mcp/errors.js';

/** Every REST failure lands in MCP's vocabulary (docs/agents.md#mcp-errors), and nothing internal leaks. */

const VOCABULARY = [
  'unauthorized',
  'forbidden',
  'not_found',
  'validation_failed',
  'duplicate_slug',
  'duplicate_alias',
  'unknown_user',
  'duplicate_share',
  'duplicate_owner',
  'restore_conflict',
  'version_conflict',
  'group_conflict',
  'llm_error',
  'internal_error',
];

describe('MCP tool errors', () => {
  test('each REST code maps to its documented counterpart, keeping the message', () => {
    const expected: Record<ErrorCode, string> = {
      UNAUTHORIZED: 'unauthorized',
      FORBIDDEN: 'forbidden',
      NOT_FOUND: 'not_found',
      BAD_REQUEST: 'validation_failed',
      INVALID_SLUG: 'validation_failed',
      INVALID_URL: 'validation_failed',
      INVALID_FIELD_LENGTH: 'validation_failed',
      INVALID_VISIBILITY: 'validation_failed',
      INVALID_TAG_NAME: 'validation_failed',
      TOO_MANY_TAGS: 'validation_failed',
      INVALID_ALIAS: 'validation_failed',
      TOO_MANY_ALIASES: 'validation_failed',
      INVALID_EXPIRES_AT: 'validation_failed',
      PRIMARY_OWNER_PROTECTED: 'validation_failed',
      NOT_RESTORABLE: 'validation_failed',
      RESTORE_CONFLICT: 'restore_conflict',
      PRECONDITION_FAILED: 'version_conflict',
      SLUG_CONFLICT: 'duplicate_slug',
      ALIAS_CONFLICT: 'duplicate_alias',
      DUPLICATE_SHARE: 'duplicate_share',
      DUPLICATE_OWNER: 'duplicate_owner',
      INVALID_GROUP_NAME: 'validation_failed',
      GROUP_CONFLICT: 'group_conflict',
      DUPLICATE_MEMBER: 'group_conflict',
      LAST_MANAGER: 'group_conflict',
      GROUP_SYNCED: 'group_conflict',
      LLM_ERROR: 'llm_error',
      LLM_NOT_CONFIGURED: 'llm_error',
      INTERNAL_ERROR: 'internal_error',
      DB_BUSY: 'internal_error',
      UNAVAILABLE: 'internal_error',
      TAG_WRITE_FAILED: 'internal_error',
      RATE_LIMITED: 'internal_error',
      PAYLOAD_TOO_LARGE: 'internal_error',
      METHOD_NOT_ALLOWED: 'internal_error',
      REQUEST_TIMEOUT: 'internal_error',
      HEADERS_TOO_LARGE: 'internal_error',
      IDEMPOTENCY_KEY_REUSED: 'internal_error',
      IDEMPOTENCY_KEY_IN_USE: 'internal_error',
    };
    assert.deepEqual(Object.keys(expected).sort(), Object.keys(ERROR_STATUS).sort(), 'every REST code is covered');
    for (const [code, tool] of Object.entries(expected) as Array<[ErrorCode, string]>) {
      const e = toToolError(new AppError(code, `message for ${code}`));
      assert.equal(e.code, tool, code);
      assert.ok(VOCABULARY.includes(e.code));
    }
    assert.equal(toToolError(new AppError('INVALID_SLUG', 'slug must match x')).message, 'slug must match x');
    assert.match(
      toToolError(new AppError('TAG_WRITE_FAILED', 'link updated but tags could not be saved; retry the request')).message,
      /retry/,
    );
  });

  test('unexpected failures say nothing about their cause', () => {
    for (const e of [new Error('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2'), new TypeError('x is undefined'), 'a string', null]) {
      const t = toToolError(e);
      assert.equal(t.code, 'internal_error');
      assert.equal(t.message, INTERNAL_MESSAGE);
    }
    const own = new ToolError('unknown_user', 'no user with email a@b.c');
    assert.equal(toToolError(own), own);
  });
});
