import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { AppError } from '../../src/domain/errors.js';
import { asSystem, asUser, KeywordService } from '../../src/links/index.js';
import { describeEachDatabase } from '../helpers/databases.js';

/**
 * Root-forward keywords through their one service (docs/links.md#keywords),
 * on every database: the name and template rules with their canonical
 * messages, duplicates, byte order and exact matching, who may manage them,
 * and the NUL rule — nothing stored on any refusal.
 */

describeEachDatabase('keywords', (ctx) => {
  const operator = asSystem('cli');

  test('keyword and template rules use the canonical messages', async () => {
    const { store } = ctx();
    const keywords = new KeywordService(store);
    for (const keyword of ['Jira', '1abc', 'my_tool', '', 'has space', '-x']) {
      await assert.rejects(
        keywords.create(operator, { keyword, urlTemplate: 'https://e.test/{slug}' }),
        (e) => {
          assert.ok(e instanceof AppError);
          assert.equal(e.code, 'BAD_REQUEST');
          assert.equal(e.message, 'Keyword must be lowercase letters, digits, and hyphens (e.g. jira, my-tool).');
          return true;
        },
        keyword,
      );
    }
    await assert.rejects(keywords.create(operator, { keyword: 'nope', urlTemplate: 'https://e.test/{SLUG}' }), (e) => {
      assert.ok(e instanceof AppError);
      assert.equal(e.message, 'URL template must contain {slug} placeholder.');
      return true;
    });
    assert.deepEqual(await keywords.list(), []);
  });

  test('a duplicate keyword is refused; keywords list in byte order and match exactly', async () => {
    const { store, clock } = ctx();
    const keywords = new KeywordService(store);
    for (const k of ['gh', 'a-b', 'ab', 'a0', 'wtf']) {
      await keywords.create(operator, { keyword: k, urlTemplate: `https://${k}.test/{slug}`, description: ` ${k} tool ` });
    }
    await assert.rejects(keywords.create(operator, { keyword: 'gh', urlTemplate: 'https://other.test/{slug}' }), (e) => {
      assert.ok(e instanceof AppError);
      assert.equal(e.code, 'BAD_REQUEST');
      assert.equal(e.message, 'Keyword "gh" already exists.');
      return true;
    });
    const list = await keywords.list();
    assert.deepEqual(
      list.map((k) => k.keyword),
      ['a-b', 'a0', 'ab', 'gh', 'wtf'],
    );
    assert.equal(list[0]!.description, 'a-b tool');
    assert.equal(list[0]!.createdAt, clock.now);
    assert.equal(await store.keywords.templateFor('gh'), 'https://gh.test/{slug}');
    assert.equal(await store.keywords.templateFor('GH'), null, 'matching is case-sensitive');
    assert.equal(await store.keywords.templateFor('g'), null);
    assert.equal(await keywords.delete(operator, list.find((k) => k.keyword === 'gh')!.id), true);
    assert.equal(await store.keywords.templateFor('gh'), null);
    assert.equal(await keywords.delete(operator, randomUUID()), false);
    assert.equal(await keywords.delete(operator, 'not-an-id'), false);
  });

  test('admins and the operator manage keywords; anyone else is refused and changes nothing', async () => {
    const { store } = ctx();
    const keywords = new KeywordService(store);
    const admin = await store.users.create({ email: `kw-admin-${randomUUID()}@example.test`, role: 'admin' });
    const user = await store.users.create({ email: `kw-user-${randomUUID()}@example.test` });
    const made = await keywords.create(asUser(admin, 'web'), { keyword: 'adm', urlTemplate: 'https://adm.test/{slug}' });
    const before = await keywords.list();
    const forbidden = (e: unknown) => e instanceof AppError && e.code === 'FORBIDDEN' && e.status === 403;
    await assert.rejects(keywords.create(asUser(user, 'web'), { keyword: 'usr', urlTemplate: 'https://usr.test/{slug}' }), forbidden);
    await assert.rejects(keywords.delete(asUser(user, 'api'), made.id), forbidden);
    assert.deepEqual(await keywords.list(), before);
  });

  test('a NUL in any field is refused by name, before the other rules', async () => {
    const { store } = ctx();
    const keywords = new KeywordService(store);
    const before = await keywords.list();
    for (const [input, field] of [
      [{ keyword: 'n\u0000l', urlTemplate: 'https://n.test/{slug}' }, 'keyword'],
      [{ keyword: 'nul', urlTemplate: 'https://n.test/{slug}\u0000' }, 'url_template'],
      [{ keyword: 'nul', urlTemplate: 'https://n.test/{slug}', description: 'd\u0000' }, 'description'],
    ] as const) {
      await assert.rejects(keywords.create(operator, input), {
        code: 'BAD_REQUEST',
        field,
        message: `${field} must not contain NUL characters`,
      });
    }
    assert.deepEqual(await keywords.list(), before);
  });
});
