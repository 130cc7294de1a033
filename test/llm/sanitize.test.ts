import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { slugError } from '../../src/domain/slug.js';
import { normalizeTags } from '../../src/domain/tags.js';
import { codePointLength } from '../../src/domain/text.js';
import { extractPageContext } from '../../src/llm/context.js';
import { promptValue, renderPrompt } from '../../src/llm/prompt.js';
import { clipForLog, sanitizeSuggestion, suggestionFromReply } from '../../src/llm/reply.js';
import { LlmError } from '../../src/llm/types.js';

/**
 * The rules that stand between a model (or a page) and the user, checked as
 * properties over arbitrary input: whatever the model writes, what comes out
 * satisfies the link rules; whatever a page holds, reading it is bounded.
 */

describe('model output sanitising', () => {
  test('whatever the model answers, the suggestion obeys the slug, length and tag rules', () => {
    const field = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ minLength: 1990, maxLength: 2100 }),
      fc.constantFrom('admin', 'mcp', 'team-wiki', 'Bad Slug!', '-x-', 'a'.repeat(129), '<script>x</script>'),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const tags = fc.oneof(
      fc.array(fc.oneof(fc.string({ maxLength: 60 }), fc.jsonValue({ maxDepth: 1 })), { maxLength: 40 }),
      fc.jsonValue({ maxDepth: 1 }),
    );
    fc.assert(
      fc.property(fc.record({ slug: field, title: field, description: field, tags }, { requiredKeys: [] }), (raw) => {
        const out = sanitizeSuggestion(raw);
        assert.deepEqual(Object.keys(out).sort(), ['description', 'slug', 'tags', 'title']);
        assert.ok(out.slug === '' || slugError(out.slug) === null, `slug ${out.slug}`);
        assert.ok(codePointLength(out.title) <= 200);
        assert.ok(codePointLength(out.description) <= 2000);
        assert.ok(Array.isArray(out.tags) && out.tags.length <= 20);
        assert.equal(normalizeTags(out.tags).length, out.tags.length, 'valid and already de-duplicated');
        // A valid string slug is kept exactly.
        if (typeof raw.slug === 'string' && slugError(raw.slug.trim()) === null) assert.equal(out.slug, raw.slug.trim());
      }),
      { numRuns: 500 },
    );
  });

  test('reply text that is not one JSON object is an LlmError carrying the text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .jsonValue()
            .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))
            .map((v) => JSON.stringify(v)),
        ),
        (text) => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text.trim());
          } catch {
            parsed = undefined;
          }
          if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return;
          assert.throws(
            () => suggestionFromReply(text),
            (e: unknown) => e instanceof LlmError && e.reply === text,
          );
        },
      ),
    );
  });

  test('log excerpts are at most 2048 bytes plus the marker, and short replies are kept whole', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000, unit: 'binary' }), (text) => {
        const out = clipForLog(text);
        if (Buffer.byteLength(text) <= 2048) assert.equal(out, text);
        else {
          assert.ok(out.endsWith('...(truncated)'));
          assert.ok(Buffer.byteLength(out.slice(0, -14)) <= 2048 + 3, 'a cut multi-byte character may become one replacement character');
        }
      }),
    );
  });
});

describe('page context extraction', () => {
  test('title and meta description, entities decoded, whitespace collapsed; Open Graph as fallback', () => {
    assert.deepEqual(
      extractPageContext('<html><head><title>A &amp; B&#33; &#x263A;</title><meta name="Description" content=" one\n two "></head>'),
      { title: 'A & B! ☺', description: 'one two' },
    );
    assert.deepEqual(extractPageContext(`<meta property='og:description' content='From OG'><title>T</title>`), {
      title: 'T',
      description: 'From OG',
    });
    assert.deepEqual(extractPageContext('<meta property="og:description" content="OG"><meta name="description" content="Plain">'), {
      title: '',
      description: 'Plain',
    });
    assert.deepEqual(extractPageContext('no markup at all'), { title: '', description: '' });
    assert.deepEqual(
      extractPageContext('<TITLE>İstanbul İİİ</TITLE><META NAME="description" CONTENT="Şehir">'),
      { title: 'İstanbul İİİ', description: 'Şehir' },
      'case folding never shifts positions',
    );
    assert.equal(extractPageContext(`<title>${'t'.repeat(500)}</title>`).title.length, 200, 'bounded to the title limit');
  });

  test('hostile pages are read in bounded time', () => {
    const size = 64 * 1024;
    const pages = [
      '<title'.repeat(size / 6),
      '<meta '.repeat(size / 6),
      `<meta ${'a'.repeat(size)}`,
      `<meta name=${'a'.repeat(size)}>`,
      `<meta ${'a='.repeat(size / 2)}>`,
      '&#'.repeat(size / 2),
      `<title>${'&amp;'.repeat(size / 5)}</title>`,
    ];
    for (const html of pages) {
      const started = process.hrtime.bigint();
      extractPageContext(html);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      assert.ok(ms < 500, `${html.slice(0, 12)}… took ${ms.toFixed(1)} ms`);
    }
  });
});

describe('prompt rendering', () => {
  test('values are one line, bounded, and substituted once', () => {
    assert.equal(promptValue('a\r\nb\u2028c\u0000d   e', 100), 'a b c d e');
    assert.equal(promptValue('x'.repeat(50), 10), 'x'.repeat(10));
    const out = renderPrompt('[{{.URL}}][{{ .Title }}][{{.Description}}]', { url: 'u', title: '{{.Description}}', description: 'd' });
    assert.equal(out, '[u][{{.Description}}][d]');
  });
});
