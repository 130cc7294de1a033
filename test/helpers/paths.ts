import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../src/paths.js';

/**
 * Files of the repository, found from its root rather than from the test
 * module's own address: the runner runs compiled copies of the tests from
 * dist/test-build/ (scripts/test.mjs).
 */
export { ROOT };

/** The other tools' export files (test/fixtures/imports/), as a directory URL. */
export const IMPORT_FIXTURES = pathToFileURL(join(ROOT, 'test', 'fixtures', 'imports') + '/');
