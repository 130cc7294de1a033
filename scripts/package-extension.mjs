#!/usr/bin/env node
// Packages the browser extension in integrations/extension/ as one zip per
// browser, ready for the Chrome Web Store and addons.mozilla.org.
//
//   node scripts/package-extension.mjs [--out <dir>]   zips into dist/extension/ (or <dir>)
//   node scripts/package-extension.mjs --types         regenerates lib/*.d.ts from the JSDoc
//   node scripts/package-extension.mjs --types --check fails when lib/*.d.ts are stale
//
// The source manifest serves both browsers unpacked. The store packages trim
// it: Chrome gets only the service worker and no gecko block, Firefox only the
// background script (Firefox releases before 121 reject a service worker key).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';

const SOURCE = 'integrations/extension';
const LIB = join(SOURCE, 'lib');

/** Development-only files: type declarations, the type-check config, docs. */
function shipped(rel) {
  return (
    !rel.startsWith('types/') &&
    rel !== 'tsconfig.json' &&
    !rel.endsWith('.d.ts') &&
    !rel.endsWith('.md') &&
    !rel.split('/').some((p) => p.startsWith('.'))
  );
}

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

/** The manifest for one browser's store package. */
export function manifestFor(browser, manifest) {
  const m = structuredClone(manifest);
  const { service_worker: worker, scripts, type } = m.background;
  if (browser === 'chrome') {
    m.background = { service_worker: worker, ...(type ? { type } : {}) };
    delete m.browser_specific_settings;
  } else {
    m.background = { scripts, ...(type ? { type } : {}) };
  }
  return m;
}

/**
 * A ZIP archive (PKWARE APPNOTE 6.3: local headers, central directory, end
 * record) with DEFLATE entries and a fixed 1980-01-01 timestamp, so the same
 * sources always give the same bytes.
 * @param {Array<{ name: string, data: Buffer }>} entries
 */
export function zip(entries) {
  const DOS_TIME = 0;
  const DOS_DATE = (0 << 9) | (1 << 5) | 1;
  const UTF8 = 0x0800;
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBuf = Buffer.from(name, 'utf8');
    const deflated = deflateRawSync(data, { level: 9 });
    const stored = deflated.length >= data.length;
    const body = stored ? data : deflated;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(UTF8, 6);
    local.writeUInt16LE(stored ? 0 : 8, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(UTF8, 8);
    central.writeUInt16LE(stored ? 0 : 8, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    // extra length, comment length, disk number, internal and external attributes: all 0
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, body);
    centrals.push(central, nameBuf);
    offset += local.length + nameBuf.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

function packageAll(outDir) {
  const manifest = JSON.parse(readFileSync(join(SOURCE, 'manifest.json'), 'utf8'));
  const files = walk(SOURCE)
    .map((p) => relative(SOURCE, p).split(sep).join('/'))
    .filter((rel) => shipped(rel) && rel !== 'manifest.json');
  mkdirSync(outDir, { recursive: true });
  const written = [];
  for (const browser of ['chrome', 'firefox']) {
    const entries = [
      { name: 'manifest.json', data: Buffer.from(JSON.stringify(manifestFor(browser, manifest), null, 2) + '\n') },
      ...files.map((rel) => ({ name: rel, data: readFileSync(join(SOURCE, rel)) })),
    ];
    const file = join(outDir, `joe-links-${browser}-${manifest.version}.zip`);
    writeFileSync(file, zip(entries));
    written.push(file);
  }
  return written;
}

/**
 * The tests import the extension's logic modules from TypeScript, which needs
 * declarations beside them; they are generated from the JSDoc, never edited.
 */
function generateTypes(check) {
  const work = mkdtempSync(join(tmpdir(), 'joe-links-ext-types-'));
  try {
    const src = join(work, 'src');
    const out = join(work, 'out');
    mkdirSync(src);
    // Compiled from a copy without the old declarations, which would otherwise shadow the sources.
    const modules = readdirSync(LIB).filter((n) => n.endsWith('.js'));
    for (const n of modules) copyFileSync(join(LIB, n), join(src, n));
    const tsc = spawnSync(
      process.execPath,
      [
        'node_modules/typescript/bin/tsc',
        '--allowJs',
        '--checkJs',
        '--strict',
        '--skipLibCheck',
        '--noUncheckedIndexedAccess',
        '--declaration',
        '--emitDeclarationOnly',
        '--target',
        'ES2022',
        '--module',
        'ESNext',
        '--moduleResolution',
        'Bundler',
        '--lib',
        'ES2023,DOM',
        '--outDir',
        out,
        ...modules.map((n) => join(src, n)),
      ],
      { stdio: 'inherit' },
    );
    if (tsc.status !== 0) process.exit(tsc.status ?? 1);
    const header =
      '// Generated from the JSDoc in the .js file beside this one by\n// `node scripts/package-extension.mjs --types`. Do not edit.\n';
    const stale = [];
    const expected = new Set();
    for (const n of modules) {
      const name = n.replace(/\.js$/, '.d.ts');
      expected.add(name);
      const text = header + readFileSync(join(out, name), 'utf8');
      const target = join(LIB, name);
      let current = null;
      try {
        current = readFileSync(target, 'utf8');
      } catch {
        // Not generated yet: written below.
      }
      if (current === text) continue;
      if (check) stale.push(target);
      else writeFileSync(target, text);
    }
    for (const n of readdirSync(LIB).filter((n) => n.endsWith('.d.ts') && !expected.has(n))) {
      if (check) stale.push(join(LIB, n));
      else rmSync(join(LIB, n));
    }
    if (stale.length > 0) {
      console.error(`stale extension type declarations: ${stale.join(', ')}\nrun: node scripts/package-extension.mjs --types`);
      process.exit(1);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args.includes('--types')) {
  generateTypes(args.includes('--check'));
} else {
  const at = args.indexOf('--out');
  const outDir = at === -1 ? join('dist', 'extension') : args[at + 1];
  if (!outDir) {
    console.error('--out needs a directory');
    process.exit(2);
  }
  for (const f of packageAll(outDir)) console.log(f);
}
