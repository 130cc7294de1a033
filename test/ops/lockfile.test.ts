import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

/**
 * `npm ci` needs nothing but the npm registry (README.md#quick-start): every locked package is a
 * registry tarball checked by its sha512, and the only install scripts are the ones whose
 * network behaviour is known.
 */

interface LockedPackage {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  inBundle?: boolean;
  hasInstallScript?: boolean;
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { lockfileVersion: number; packages: Record<string, LockedPackage> };
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, Record<string, unknown> | undefined>;
const locked = Object.entries(lock.packages).filter(([path]) => path !== '');

test('every dependency is a semver range, never a git, file or URL source', () => {
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    for (const [name, spec] of Object.entries(manifest[field] ?? {})) {
      assert.match(String(spec), /^[\^~]?\d+\.\d+\.\d+(-[\w.]+)?$/, `${name}@${spec}`);
    }
  }
});

test('every locked package comes from the npm registry with a sha512 integrity', () => {
  assert.equal(lock.lockfileVersion, 3);
  assert.ok(locked.length > 100);
  for (const [path, p] of locked) {
    assert.ok(path.startsWith('node_modules/'), path);
    assert.notEqual(p.link, true, `${path} is a link to a local folder`);
    if (p.resolved !== undefined) assert.match(p.resolved, /^https:\/\/registry\.npmjs\.org\//, path);
    // Packages bundled inside another package's tarball come with it and carry no hash of their own.
    if (p.inBundle) continue;
    assert.match(p.integrity ?? '', /^sha512-/, path);
    assert.match(p.version ?? '', /^\d+\.\d+\.\d+/, path);
  }
});

test('only known packages run install scripts', () => {
  // better-sqlite3: prebuild-install tries a prebuilt binary from GitHub, else node-gyp compiles
  //   it (python3, make, g++); npm_config_build_from_source=better-sqlite3 skips the download.
  // esbuild: checks its platform binary, an optional dependency from the registry.
  // @parcel/watcher: compiles only when npm_config_build_from_source is exactly "true".
  // @scarf/scarf (under Prism, a test tool): reports installs to scarf.sh unless the root
  //   package.json turns it off, as ours does (scarfSettings.enabled false, checked below).
  assert.equal((manifest.scarfSettings as { enabled?: boolean } | undefined)?.enabled, false, 'scarf stays off');
  assert.deepEqual(
    locked
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.slice('node_modules/'.length))
      .sort(),
    ['@parcel/watcher', '@scarf/scarf', 'better-sqlite3', 'esbuild'],
  );
});
