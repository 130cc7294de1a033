import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decodeUtf8, holdsLoneSurrogate, isBlankJson } from '../domain/jsonText.js';

/**
 * The one way a JSON request body is read, on every surface that takes one
 * (docs/api.md#request-bodies). `acceptJsonBodies` installs it at the root
 * before any context is registered, and contexts that replace their parsers
 * (the REST API, MCP) install it again, so no context reads JSON another way.
 *
 * - A body of nothing or only JSON whitespace is no body: the route sees
 *   `undefined`, as it does for a request without one, whatever
 *   `Content-Type` says.
 * - The bytes must be UTF-8; a malformed sequence is refused, never replaced.
 * - Fastify's JSON parser (secure-json-parse, a leading BOM skipped) reads the
 *   text and refuses `__proto__` and `constructor.prototype` keys.
 * - No string or object key may hold a lone surrogate after `\uXXXX` escapes.
 *
 * Fastify's body limit applies before any of this: the body is read as
 * bytes under the context's limit.
 */

/** A refused JSON body: 400, with the reason each surface words in its own error shape. */
export class JsonBodyError extends Error {
  readonly statusCode = 400;
  constructor(readonly reason: string) {
    super(`invalid request body: ${reason}`);
    this.name = 'JsonBodyError';
  }
}

/**
 * Why Fastify's parser refused the text, which its error does not say: text that is JSON was
 * refused for a `__proto__` or `constructor.prototype` key.
 */
function refusal(text: string): string {
  try {
    JSON.parse(text.replace(/^\uFEFF/, ''));
    return 'an object key is __proto__ or constructor.prototype';
  } catch {
    return 'not valid JSON';
  }
}

type Parse = (req: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void) => void;

export function acceptJsonBodies(instance: FastifyInstance): void {
  const parseJson = instance.getDefaultJsonParser('error', 'error') as Parse;
  instance.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, bytes: Buffer, done) => {
    if (isBlankJson(bytes)) return done(null, undefined);
    const text = decodeUtf8(bytes);
    if (text === null) return done(new JsonBodyError('not valid UTF-8'));
    parseJson(req, text, (err, value) => {
      if (err) return done(new JsonBodyError(refusal(text)));
      if (holdsLoneSurrogate(value)) return done(new JsonBodyError('a string holds an unpaired UTF-16 surrogate'));
      return done(null, value);
    });
  });
}
