import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

/** The running version, shown in the sidebar footer. */
export const APP_VERSION: string = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? 'dev';
