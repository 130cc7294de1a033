#!/usr/bin/env node
// Builds static assets: the Tailwind/DaisyUI CSS bundle and content-hashed
// copies of every script, listed in static/build/manifest.json so pages link
// to cache-busting names.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';

const out = 'static/build';
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
mkdirSync('static/css', { recursive: true });

const css = spawnSync(
  process.execPath,
  ['node_modules/@tailwindcss/cli/dist/index.mjs', '-i', 'src/views/app.css', '-o', 'static/css/app.css', '--minify'],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);
if (css.status !== 0) {
  process.stderr.write(css.stderr);
  process.exit(css.status ?? 1);
}

const manifest = {};
function publish(logical, file) {
  const body = readFileSync(file);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  const ext = extname(file);
  const name = `${basename(file, ext).replace(/\.min$/, '')}.${hash}${ext}`;
  copyFileSync(file, join(out, name));
  manifest[logical] = `/static/build/${name}`;
}

publish('css/app.css', 'static/css/app.css');
publish('js/htmx.js', 'node_modules/htmx.org/dist/htmx.min.js');
publish('img/favicon.svg', 'static/img/favicon.svg');
for (const f of readdirSync('static/js').sort()) if (f.endsWith('.js')) publish(`js/${f}`, join('static/js', f));
writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
