import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { crc32, inflateRawSync } from 'node:zlib';

/**
 * The extension as shipped: the source manifest (docs/agents.md#browser-extension),
 * the per-browser store zips, and the type checks of its plain JavaScript.
 */

const SOURCE = 'integrations/extension';
const manifest = JSON.parse(readFileSync(join(SOURCE, 'manifest.json'), 'utf8'));

/** Reads a ZIP through its central directory, checking every entry's CRC. */
function unzip(buf: Buffer): Map<string, Buffer> {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, 'end of central directory record');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50, 'central directory entry');
    const method = buf.readUInt16LE(p + 10);
    const crc = buf.readUInt32LE(p + 16);
    const csize = buf.readUInt32LE(p + 20);
    const usize = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    assert.equal(buf.readUInt32LE(local), 0x04034b50, `local header of ${name}`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + csize);
    const data = method === 0 ? Buffer.from(raw) : inflateRawSync(raw);
    assert.equal(data.length, usize, `size of ${name}`);
    assert.equal(crc32(data), crc, `crc of ${name}`);
    out.set(name, data);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** Files a shipped file points at: module imports, script and style sources, images. */
function references(name: string, text: string): string[] {
  const dir = name.includes('/') ? name.slice(0, name.lastIndexOf('/') + 1) : '';
  const refs = [
    ...[...text.matchAll(/\bfrom\s+'(\.[^']+)'/g)].map((m) => m[1]!),
    ...[...text.matchAll(/\b(?:src|href)="([^"#:]+)"/g)].map((m) => m[1]!),
  ];
  return refs.map((r) => new URL(r, `file:///x/${dir}`).pathname.slice('/x/'.length));
}

describe('source manifest', () => {
  test('carries the MV3 keys the spec lists', () => {
    assert.equal(manifest.manifest_version, 3);
    assert.equal(manifest.name, 'joe-links');
    assert.deepEqual(manifest.background, { service_worker: 'background.js', scripts: ['background.js'], type: 'module' });
    assert.deepEqual([...manifest.permissions].sort(), [
      'activeTab',
      'alarms',
      'clipboardWrite',
      'declarativeNetRequest',
      'scripting',
      'storage',
      'tabs',
      'webNavigation',
    ]);
    assert.deepEqual(manifest.host_permissions, ['<all_urls>']);
    assert.equal(manifest.action.default_popup, 'popup.html');
    assert.equal(manifest.action.default_title, 'joe-links');
    assert.deepEqual(Object.keys(manifest.action.default_icon), ['16', '48', '128']);
    assert.deepEqual(manifest.options_ui, { page: 'options.html', open_in_tab: true });
    assert.deepEqual(manifest.omnibox, { keyword: 'go' });
    assert.equal(
      manifest.content_security_policy.extension_pages,
      "default-src 'self'; style-src 'self' 'unsafe-inline'; connect-src http: https:;",
    );
    assert.deepEqual(manifest.browser_specific_settings, {
      gecko: { id: 'joe-links@joestump.net', strict_min_version: '113.0', data_collection_permissions: { required: ['none'] } },
    });
  });

  test('every file it names exists, and icons are PNGs of the stated size', () => {
    for (const [size, file] of Object.entries<string>(manifest.action.default_icon)) {
      const png = readFileSync(join(SOURCE, file));
      assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG', file);
      assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [Number(size), Number(size)], file);
    }
    for (const f of [manifest.background.service_worker, manifest.action.default_popup, manifest.options_ui.page])
      assert.ok(existsSync(join(SOURCE, f)), f);
  });

  test('pages load scripts from files only: no inline script or handler the CSP would block', () => {
    for (const page of ['popup.html', 'options.html']) {
      const html = readFileSync(join(SOURCE, page), 'utf8');
      assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, `${page}: inline <script>`);
      assert.doesNotMatch(html, /\son[a-z]+=/i, `${page}: inline event handler`);
    }
  });
});

describe('store packages', () => {
  const out = mkdtempSync(join(tmpdir(), 'joe-links-ext-pkg-'));
  after(() => rmSync(out, { recursive: true, force: true }));

  const build = () => {
    const r = spawnSync(process.execPath, ['scripts/package-extension.mjs', '--out', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim().split('\n');
  };

  test('one zip per browser, each complete and with a manifest trimmed for that store', () => {
    const files = build();
    assert.deepEqual(files, [
      join(out, `joe-links-chrome-${manifest.version}.zip`),
      join(out, `joe-links-firefox-${manifest.version}.zip`),
    ]);
    const shippedSources = new Set(
      ['background.js', 'popup.js', 'options.js', 'popup.html', 'options.html', 'extension.css'].concat(
        readdirSync(join(SOURCE, 'lib'))
          .filter((f) => f.endsWith('.js'))
          .map((f) => `lib/${f}`),
      ),
    );
    for (const [browser, file] of [
      ['chrome', files[0]!],
      ['firefox', files[1]!],
    ] as const) {
      const entries = unzip(readFileSync(file));
      const m = JSON.parse(entries.get('manifest.json')!.toString('utf8'));
      if (browser === 'chrome') {
        assert.deepEqual(m.background, { service_worker: 'background.js', type: 'module' });
        assert.equal(m.browser_specific_settings, undefined);
      } else {
        assert.deepEqual(m.background, { scripts: ['background.js'], type: 'module' });
        assert.equal(m.browser_specific_settings.gecko.id, 'joe-links@joestump.net');
      }
      const { background: _b, browser_specific_settings: _g, ...rest } = manifest;
      const { background: _b2, browser_specific_settings: _g2, ...shipped } = m;
      assert.deepEqual(shipped, rest, `${browser}: every other key as in the source`);

      for (const src of shippedSources) assert.deepEqual(entries.get(src), readFileSync(join(SOURCE, src)), `${browser}: ${src}`);
      for (const icon of Object.values<string>(m.action.default_icon)) assert.ok(entries.has(icon), `${browser}: ${icon}`);
      for (const [name, data] of entries) {
        if (!/\.(js|html)$/.test(name)) continue;
        for (const ref of references(name, data.toString('utf8'))) assert.ok(entries.has(ref), `${browser}: ${name} needs ${ref}`);
      }
      for (const name of entries.keys())
        assert.doesNotMatch(name, /\.d\.ts$|^types\/|tsconfig|\.md$/, `${browser}: development file ${name}`);
    }
  });

  test('packaging is reproducible byte for byte', () => {
    const first = build().map((f) => readFileSync(f));
    const second = build().map((f) => readFileSync(f));
    assert.deepEqual(second, first);
  });
});

describe('type checks of the extension JavaScript', () => {
  test('the JSDoc types hold (tsc --checkJs over every script)', () => {
    const r = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', join(SOURCE, 'tsconfig.json')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });

  test('the declarations the tests import are generated from the current sources', () => {
    const r = spawnSync(process.execPath, ['scripts/package-extension.mjs', '--types', '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });
});
