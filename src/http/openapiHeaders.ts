/**
 * The rate-limit headers in the OpenAPI document (docs/api.md#rate-limits): every `/api/v1`
 * route spends a budget, so every response may carry `X-RateLimit-Limit`, `-Remaining` and
 * `-Reset`, and a 429 also `Retry-After`. They are declared once as header components and
 * referred to from each response, rather than repeated in every route's schema.
 */

type Doc = { components?: Record<string, unknown>; paths?: Record<string, Record<string, Operation>> };
interface Operation {
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}

const RATE_LIMIT_HEADERS: Record<string, { description: string; schema: { type: 'integer'; minimum: 0 } }> = {
  'X-RateLimit-Limit': {
    description: 'Requests the caller’s budget allows per minute (sent when rate limiting is on, JOE_API_RATE_LIMIT > 0)',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current minute’s budget',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'Seconds until the budget refills',
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again (429 only)',
    schema: { type: 'integer', minimum: 0 },
  },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The document with the header components added and referred to from every response. */
export function withRateLimitHeaders<D extends object>(document: D): D {
  const doc = document as Doc;
  const components = { ...doc.components, headers: { ...(doc.components?.headers as object), ...RATE_LIMIT_HEADERS } };
  const paths: Record<string, Record<string, Operation>> = {};
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    paths[path] = {};
    for (const [method, op] of Object.entries(ops)) {
      const responses: NonNullable<Operation['responses']> = {};
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const headers = response.headers ?? {};
        responses[status] = {
          ...response,
          headers: {
            ...headers,
            'X-RateLimit-Limit': ref('X-RateLimit-Limit'),
            'X-RateLimit-Remaining': ref('X-RateLimit-Remaining'),
            'X-RateLimit-Reset': ref('X-RateLimit-Reset'),
            ...(status === '429' && { 'Retry-After': ref('Retry-After') }),
          },
        };
      }
      paths[path][method] = { ...op, responses };
    }
  }
  return { ...doc, components, paths } as D;
}
