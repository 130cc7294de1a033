import { Kind, Type, TypeRegistry, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

/**
 * A reference to a named schema (one registered with `addSchema` under its
 * `$id`), typed as the schema it points to. Named schemas become
 * `#/components/schemas/<$id>` in the OpenAPI document, and Fastify resolves
 * the same reference when it validates or serialises.
 */
export function ref<T extends TSchema>(schema: T, extra: Record<string, unknown> = {}): TUnsafe<Static<T>> {
  if (typeof schema.$id !== 'string') throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>({ ...extra, $ref: schema.$id });
}

/** `T` or JSON `null` (OpenAPI 3.0 renders it as `nullable: true`). */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** A resource's id (a UUID unless the description says what it names). */
export const Id = (description?: string) => Type.String({ description: description ?? 'UUID' });

/** An RFC 3339 timestamp in UTC, as the API writes them. */
export function Timestamp(description?: string) {
  return Type.String({ format: 'date-time', ...(description ? { description } : {}) });
}

// A string enum that OpenAPI shows as one `enum` (a union of literals would render as a
// list of one-value alternatives); TypeBox checks it through this registered kind.
if (!TypeRegistry.Has('StringEnum')) {
  TypeRegistry.Set<{ enum: string[] }>('StringEnum', (schema, value) => typeof value === 'string' && schema.enum.includes(value));
}

// A closed list the document states while the route's own check answers a value outside it, with
// its own code and words (INVALID_VISIBILITY, the importer's list of tools): any string passes here.
if (!TypeRegistry.Has('DocumentedEnum')) {
  TypeRegistry.Set('DocumentedEnum', (_schema, value) => typeof value === 'string');
}

/** A string whose allowed values the OpenAPI document lists as `enum`, checked by the route rather than the schema. */
export function DocumentedEnum(values: readonly string[], options: Record<string, unknown> = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ ...options, [Kind]: 'DocumentedEnum', type: 'string', enum: [...values] });
}

export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, [Kind]: 'StringEnum', type: 'string', enum: [...values] });
}
