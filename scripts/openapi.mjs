#!/usr/bin/env node
// Regenerates docs/openapi.json from the route schemas (docs/api.md#openapi-and-swagger-ui).
// Usage: npm run openapi   (or: node --import tsx scripts/openapi.mjs [--check])
// --check writes nothing and exits 1 when the committed copy is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { generateOpenApiDocument, formatOpenApiDocument } = await import('../src/openapiDocument.ts');

const target = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
const text = formatOpenApiDocument(await generateOpenApiDocument());

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    console.error('docs/openapi.json is stale: run `npm run openapi` and commit the result');
    process.exit(1);
  }
  console.log('docs/openapi.json is up to date');
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
