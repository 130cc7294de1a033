/**
 * The closed vocabulary of API error codes (docs/api.md#errors). Every error the
 * application raises on purpose carries one of these, so the HTTP edge can
 * map it to a status without string matching.
 */
export const ERROR_STATUS = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  BAD_REQUEST: 400,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  INVALID_SLUG: 400,
  INVALID_URL: 400,
  INVALID_FIELD_LENGTH: 400,
  INVALID_VISIBILITY: 400,
  INVALID_TAG_NAME: 400,
  TOO_MANY_TAGS: 400,
  INVALID_EXPIRES_AT: 400,
  SLUG_CONFLICT: 409,
  INVALID_ALIAS: 400,
  TOO_MANY_ALIASES: 400,
  ALIAS_CONFLICT: 409,
  DB_BUSY: 503,
  UNAVAILABLE: 503,
  RATE_LIMITED: 429,
  PAYLOAD_TOO_LARGE: 413,
  TAG_WRITE_FAILED: 500,
  DUPLICATE_OWNER: 409,
  DUPLICATE_SHARE: 409,
  INVALID_GROUP_NAME: 400,
  GROUP_CONFLICT: 409,
  DUPLICATE_MEMBER: 409,
  LAST_MANAGER: 409,
  GROUP_SYNCED: 409,
  PRIMARY_OWNER_PROTECTED: 400,
  NOT_RESTORABLE: 400,
  RESTORE_CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  LLM_NOT_CONFIGURED: 503,
  LLM_ERROR: 502,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An expected failure with a user-facing message; `field` names the offending input when there is one. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, field?: string) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.field = field;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
