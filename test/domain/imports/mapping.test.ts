import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { collisionReason, importSlug, SlugLedger } from '../../../src/domain/imports/mapping.js';
import { slugError } from '../../../src/domain/slug.js';

test('names become slugs: lower case, accents dropped, refused characters one hyphen, none at the ends', () => {
  const cases: [string, string][] = [
    ['Meeting-Notes', 'meeting-notes'],
    ['go.dev', 'go-dev'],
    ['Team_Wiki', 'team-wiki'],
    ['  Q3 Plan!! ', 'q3-plan'],
    ['café', 'cafe'],
    ['eng/onboarding', 'eng/onboarding'],
    ['Blog/Launch', 'blog/launch'],
    ['/eng//On Boarding/', 'eng/on-boarding'],
    ['eng.team/q3_plan', 'eng-team/q3-plan'],
    // Where our rules refuse the name with its `/`, it is joined as before.
    ['admin/tools', 'admin-tools'],
    ['a/b/c/d/e/f/g/h/i', 'a-b-c-d-e-f-g-h-i'],
    ['/meet', 'meet'],
    ['a--b', 'a-b'],
    ['ok', 'ok'],
  ];
  for (const [written, slug] of cases) assert.deepEqual(importSlug(written), { slug, changed: slug !== written }, written);
});

test('names that cannot be made valid are refused with the reason', () => {
  assert.match((importSlug('日本') as { error: string }).error, /no letters or digits/);
  assert.match((importSlug('---') as { error: string }).error, /no letters or digits/);
  assert.match((importSlug('a'.repeat(129)) as { error: string }).error, /longer than 128/);
  assert.match((importSlug('Admin') as { error: string }).error, /"admin" is reserved/);
});

test('whatever a file holds, a slug it yields passes the write-time rule', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 140 }), (written) => {
      const mapped = importSlug(written);
      if ('slug' in mapped) assert.equal(slugError(mapped.slug), null, JSON.stringify(written));
    }),
    { numRuns: 2000 },
  );
});

test('the ledger keeps the first claim and names it', () => {
  const ledger = new SlugLedger();
  ledger.claim('wiki', { line: 3, written: 'Wiki', as: 'slug' });
  ledger.claim('wiki', { line: 9, written: 'wiki', as: 'slug' });
  const earlier = ledger.earlier('wiki')!;
  assert.equal(earlier.line, 3);
  assert.equal(collisionReason('wiki', earlier, 'slug'), 'the slug "wiki" is already the slug of line 3 (written "Wiki")');
  assert.equal(ledger.earlier('other'), undefined);
});
