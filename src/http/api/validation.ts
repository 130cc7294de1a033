import { FormatRegistry, Kind, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { firstNulField, hasNul, nulMessage } from '../../domain/nul.js';
import { parseRfc3339 } from '../../domain/timeseries.js';
import { JsonBodyError, acceptJsonBodies } from '../jsonBody.js';

/**
 * Request validation for `/api/v1` (docs/api.md#conventions, docs/api.md#errors). Schemas check
 * shapes only — types, required fields, RFC 3339 timestamps — and do it
 * strictly: a number where a string belongs is a 400, never silently turned
 * into `"5"` (Fastify's default Ajv coerces types, which suits HTML forms, not
 * a JSON API). Unknown fields pass untouched and handlers never read them,
 * which is how they are ignored. Every failure becomes `400 BAD_REQUEST`
 * naming the field; domain rules (slug, URL, lengths, tags, visibility,
 * expiry) keep their own codes because schemas never restate them.
 */

// The one definition of an RFC 3339 timestamp (explicit offset, real calendar date) for every
// `format: 'date-time'` the API accepts; TypeBox refuses formats it does not know.
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (value) => parseRfc3339(value) !== null);

type Part = 'body' | 'querystring' | 'params' | 'headers';

const PREFIX: Record<Part, string> = {
  body: 'invalid request body',
  querystring: 'invalid query parameter',
  params: 'invalid path parameter',
  headers: 'invalid header',
};

function expected(schema: TSchema): string {
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.anyOf)) {
    const members = s.anyOf as TSchema[];
    if (members.every((m) => (m as Record<string, unknown>).const !== undefined)) {
      return `one of: ${members.map((m) => String((m as Record<string, unknown>).const)).join(', ')}`;
    }
    return members.map(expected).join(' or ');
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return `one of: ${(s.enum as unknown[]).join(', ')}`;
  if (s.format === 'date-time') return 'an RFC 3339 date-time with offset (e.g. 2030-01-02T15:04:05Z)';
  switch (s.type) {
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
    case 'integer':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'array':
      return 'an array';
    case 'object':
      return 'an object';
    case 'null':
      return 'null';
    default:
      return 'a valid value';
  }
}

/** `/tags/3` → `tags[3]`, `/expires_at` → `expires_at`. */
function fieldName(path: string): string {
  return path
    .split('/')
    .slice(1)
    .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`))
    .join('');
}

/** The rule a value broke, in words, for the rules beyond its type (a limit, a field not known). */
function brokenRule(err: ValueError): string | null {
  const s = err.schema as Record<string, unknown>;
  switch (err.type) {
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${String(s.maxItems)} items`;
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${String(s.minItems)} items`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${String(s.maxLength)} characters`;
    case ValueErrorType.StringMinLength:
      return `must be at least ${String(s.minLength)} characters`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${String(s.maximum)}`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${String(s.minimum)}`;
    case ValueErrorType.ObjectAdditionalProperties:
      return 'is not a field this request takes';
    default:
      return null;
  }
}

export function describeValidationError(err: ValueError, part: Part): string {
  const field = fieldName(err.path);
  if (err.type === ValueErrorType.ObjectRequiredProperty) return `${field} is required`;
  const rule = brokenRule(err);
  if (field === '') {
    if (rule !== null) return `${PREFIX[part]}: ${rule}`;
    return part === 'body' ? `${PREFIX.body}: expected a JSON object` : PREFIX[part];
  }
  return `${PREFIX[part]}: ${field} ${rule ?? `must be ${expected(err.schema)}`}`;
}

/** The first of `fields` holding a NUL (domain/nul.ts); `''` when the value itself is such a string. */
function firstNulFieldOf(value: unknown, fields: readonly string[]): string | null {
  if (typeof value !== 'object' || value === null) return typeof value === 'string' && hasNul(value) ? '' : null;
  return firstNulField(fields.map((f) => [f, (value as Record<string, unknown>)[f]] as const));
}

/**
 * Marks a parameter the server decodes itself and never hands to a query as
 * given (cursors): a NUL in it just makes it malformed, which the list
 * routes answer by starting at the first page.
 */
export const OPAQUE = Symbol.for('joe-links.api.opaque');

function isTypeBox(schema: unknown): schema is TSchema {
  return typeof schema === 'object' && schema !== null && Kind in schema;
}

/**
 * The TypeBox originals of the named schemas (Fastify keeps only plain
 * clones), kept on the context that set the validator compiler and shared by
 * the contexts inside it.
 */
const namedSchemas = new WeakMap<object, Map<string, TSchema>>();

/** The named schemas in reach of a context: its own map or the nearest enclosing context's. */
function namedSchemaMap(instance: FastifyInstance): Map<string, TSchema> | undefined {
  // An encapsulated Fastify context is created with its parent as prototype.
  for (let i: object | null = instance; i !== null; i = Object.getPrototypeOf(i) as object | null) {
    const map = namedSchemas.get(i);
    if (map) return map;
  }
  return undefined;
}

/**
 * Adds a named schema (one with an `$id`) to an API context: it becomes a
 * component of the OpenAPI document and can be referenced with `ref()` from
 * route schemas, for validation and serialisation alike.
 */
export function addNamedSchema(instance: FastifyInstance, schema: TSchema): void {
  if (typeof schema.$id !== 'string') throw new Error('a named schema needs an $id');
  instance.addSchema(schema);
  let map = namedSchemaMap(instance);
  if (!map) namedSchemas.set(instance, (map = new Map()));
  map.set(schema.$id, schema);
}

/**
 * A validator compiler for one encapsulated context: TypeBox's compiled
 * checks, with `$ref`s resolved against the context's named schemas.
 */
export function apiValidatorCompiler(instance: FastifyInstance): FastifySchemaCompiler<TSchema> {
  return ({ schema, httpPart, method, url }) => {
    const part = (httpPart ?? 'body') as Part;
    const named = [...(namedSchemaMap(instance)?.values() ?? [])];
    const $ref = (schema as { $ref?: unknown }).$ref;
    const target = typeof $ref === 'string' ? named.find((s) => s.$id === $ref) : schema;
    if (!isTypeBox(target)) {
      throw new Error(`${method} ${url}: ${part} schemas of /api/v1 routes must be TypeBox schemas (or references to named ones)`);
    }
    // Compiled at the route's first request, as its response serializers are (http/serializers.ts).
    let compiled: ReturnType<typeof TypeCompiler.Compile> | undefined;
    const properties = (target as { properties?: Record<string, Record<PropertyKey, unknown>> }).properties ?? {};
    const fields = Object.keys(properties).filter((k) => properties[k]?.[OPAQUE] !== true);
    return (value: unknown) => {
      const check = (compiled ??= TypeCompiler.Compile(target, named));
      if (!check.Check(value)) {
        const first = check.Errors(value).First();
        return { error: new AppError('BAD_REQUEST', first ? describeValidationError(first, part) : PREFIX[part]) };
      }
      const nul = firstNulFieldOf(value, fields);
      if (nul !== null) return { error: new AppError('BAD_REQUEST', `${PREFIX[part]}: ${nulMessage(nul || 'value')}`) };
      return { value };
    };
  };
}

/**
 * Bodies are JSON and nothing else (docs/api.md#conventions): the HTML form and
 * plain-text parsers the web routes use are removed from the API context, and
 * JSON is read by the app's one rule (docs/api.md#request-bodies).
 */
export function jsonBodiesOnly(instance: FastifyInstance): void {
  instance.removeAllContentTypeParsers();
  acceptJsonBodies(instance);
}

const BODY_ERRORS: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'invalid request body: send JSON with Content-Type: application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid request body: Content-Length does not match',
};

/**
 * Framework-level body errors in the API's error shape. Everything else goes
 * on to the enclosing `/api` context's handler (errors.ts answerApiError).
 */
export function apiErrorHandler(instance: FastifyInstance): void {
  instance.setErrorHandler((error: Error & { code?: string; statusCode?: number }, _req, reply) => {
    const message = error instanceof JsonBodyError ? error.message : error.code !== undefined ? BODY_ERRORS[error.code] : undefined;
    if (message !== undefined) return reply.code(400).type('application/json').send({ error: message, code: 'BAD_REQUEST' });
    throw error;
  });
}
