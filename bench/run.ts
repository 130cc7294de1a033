import { spawnSync } from 'node:child_process';
import { benchRedirects } from './redirect.js';

/**
 * `npm run bench`: one line per figure, each a ratio or bound measured in
 * this run (architecture.md §6). Not part of `npm test`.
 */
const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-needed'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const only = process.argv.slice(2);
const want = (name: string) => only.length === 0 || only.includes(name);

if (want('redirect')) {
  const r = await benchRedirects();
  console.log(`redirect_ours_rps=${r.ours.toFixed(0)}`);
  console.log(`redirect_bare_rps=${r.bare.toFixed(0)}`);
  console.log(`redirect_ratio=${r.ratio.toFixed(3)} (target >= 0.7)`);
}
