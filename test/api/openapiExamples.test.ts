import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { ROOT } from '../helpers/paths.js';

/**
 * The document's examples (docs/api.md#openapi-and-swagger-ui) are there for every path
 * parameter and request body, and each is a value its schema accepts — what a mock server
 * would answer with and a contract tester would send.
 */

type Schema = Record<string, unknown>;
const doc = JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
  paths: Record<
    string,
    Record<
      string,
      { parameters?: Array<{ in: string; name: string; example?: unknown }>; requestBody?: { content: Record<string, { schema: Schema }> } }
    >
  >;
};

function validator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    ajv.addSchema(nullableToTypes(schema) as Schema, `#/components/schemas/${name}`);
  }
  return ajv;
}

/** `type: string, nullable: true` → `type: [string, null]`, recursively, so Ajv reads 3.0's null rule. */
function nullableToTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableToTypes);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'example' ? v : nullableToTypes(v);
  if (out.nullable === true && typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}

describe('examples in the API document', () => {
  test('every path parameter has one', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const p of op.parameters ?? []) {
          if (p.in === 'path') assert.equal(typeof p.example, 'string', `${method} ${path} {${p.name}}`);
        }
      }
    }
  });

  test('every JSON request body has an example its schema accepts, and so do the answers that carry one', () => {
    const ajv = validator();
    let bodies = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const ref = op.requestBody?.content['application/json']?.schema.$ref as string | undefined;
        if (!ref) continue;
        bodies++;
        const name = ref.split('/').pop()!;
        assert.ok(doc.components.schemas[name]!.example !== undefined, `${method} ${path}: ${name} has an example`);
      }
    }
    assert.ok(bodies >= 14, `${bodies} JSON bodies`);
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      if (schema.example === undefined) continue;
      const check = ajv.getSchema(`#/components/schemas/${name}`)!;
      assert.ok(check(schema.example), `${name}: ${JSON.stringify(check.errors)}`);
    }
  });
});
