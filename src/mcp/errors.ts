import { isAppError, type ErrorCode } from '../domain/errors.js';

/**
 * The MCP tool error vocabulary (docs/agents.md#mcp-errors): lowercase
 * codes returned as `isError` tool results, never JSON-RPC errors, so an
 * agent can read the reason and keep calling.
 */
export type ToolErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'validation_failed'
  | 'duplicate_slug'
  | 'duplicate_alias'
  | 'unknown_user'
  | 'duplicate_share'
  | 'duplicate_owner'
  | 'restore_conflict'
  | 'version_conflict'
  | 'group_conflict'
  | 'llm_error'
  | 'internal_error';

export class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

/** Where each REST code lands in the MCP vocabulary; REST's message text is kept. */
const FROM_REST: Partial<Record<ErrorCode, ToolErrorCode>> = {
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
};

export const INTERNAL_MESSAGE = 'internal error; the failure was logged';

/**
 * The tool error for anything a handler threw. Expected failures keep their
 * message; anything else becomes `internal_error` with a fixed message (the
 * cause goes to the log, not to the agent).
 */
export function toToolError(e: unknown): ToolError {
  if (e instanceof ToolError) return e;
  if (isAppError(e)) {
    const code = FROM_REST[e.code];
    if (code) return new ToolError(code, e.message);
    // Busy or unreachable database, or tags not saved after the row: REST's messages already say a retry is safe.
    if (e.code === 'DB_BUSY' || e.code === 'UNAVAILABLE' || e.code === 'TAG_WRITE_FAILED')
      return new ToolError('internal_error', e.message);
  }
  return new ToolError('internal_error', INTERNAL_MESSAGE);
}
