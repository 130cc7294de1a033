import { basename, isAbsolute, relative } from 'node:path';

/**
 * How to run `joe-links` again, as whoever started this process would type it, so the
 * commands the server prints (the first-run sign-in box) work where they are read: the
 * `joe-links` executable when it was started by that name (the container, a global install),
 * `npm run cli --` from a checkout started with `npm start` or `npm run cli` (npm links no
 * executable for the project itself), else `node <script>` as it was given.
 */
export function cliCommand(argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const event = env.npm_lifecycle_event;
  if (env.npm_package_name === 'joe-links' && (event === 'start' || event === 'cli')) return 'npm run cli --';
  const script = argv[1] ?? '';
  if (basename(script) === 'joe-links') return 'joe-links';
  if (script === '') return 'joe-links';
  const rel = relative(cwd, script);
  const shown = rel === '' || rel.startsWith('..') || isAbsolute(rel) ? script : rel;
  return `node ${/^[\w./@:+-]+$/.test(shown) ? shown : `'${shown.replaceAll("'", "'\\''")}'`}`;
}
