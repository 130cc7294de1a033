// A node:test reporter for a process that runs several test files one after
// another (scripts/test.mjs): one JSON line as each file is done, with its
// counts and its time on the clock, written to file descriptor 3, the pipe
// the runner reads (a socket, which cannot be opened by a /dev/fd path).
//
// A test's event names the file that called test()/describe(); a suite made
// by a helper (describeEachDatabase) names the helper, so events from files
// outside the process's list (JOE_TEST_FILES) count for the file that is
// running. Files run in the order they were imported, so the first event of
// the next file ends the one before. A file that failed to load is a test
// named "loading <its URL>" (the runner's group module makes it).
import { writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const files = new Set(JSON.parse(process.env.JOE_TEST_FILES ?? '[]'));

export default async function* filesReporter(source) {
  let current;
  let since = performance.now();
  const done = () => {
    writeSync(3, `${JSON.stringify({ ...current, ms: Math.round(performance.now() - since) })}\n`);
    since = performance.now();
    current = undefined;
  };
  for await (const { type, data } of source) {
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    const file = data.name.startsWith('loading file:')
      ? fileURLToPath(data.name.slice('loading '.length))
      : files.has(data.file)
        ? data.file
        : (current?.file ?? data.file);
    if (current && current.file !== file) done();
    current ??= { file, tests: 0, failed: false };
    // A suite whose hook failed has failed although each of its tests may have passed.
    if (type === 'test:fail') current.failed = true;
    if (data.details?.type !== 'suite') current.tests += 1;
  }
  if (current) done();
  // Nothing for the destination: the lines went to the runner.
  yield '';
}
