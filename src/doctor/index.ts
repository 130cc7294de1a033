import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, type Config } from '../config.js';
import { migrationNames } from '../db/migrations/index.js';
import { checkBaseUrl } from './baseUrl.js';
import { fail, ok, skip, type CheckResult } from './check.js';
import { checkDatabase, checkSqliteFiles } from './database.js';
import { checkMail, checkSignIn } from './remote.js';
import { ConfigError, loadYaml, SETTINGS, settingText } from '../config/sources.js';

export type { CheckResult, CheckStatus } from './check.js';

/**
 * `joe-links doctor` (docs/operations.md#doctor): reads the configuration as `serve` would
 * and checks what it depends on, without starting anything or changing the database.
 */
export async function runDoctor(opts: { env: Record<string, string | undefined>; cwd: string }): Promise<CheckResult[]> {
  const { env, cwd } = opts;
  let config: Config;
  let yaml: Record<string, string>;
  try {
    yaml = loadYaml({ cwd });
    config = loadConfig({ env, cwd });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return [
      fail('configuration', e.message, 'correct that setting (every one is described in docs/configuration.md)'),
      skip('the rest', 'they need a configuration that loads'),
    ];
  }
  const file = existsSync(join(cwd, 'joe-links.yaml')) ? `, with ${join(cwd, 'joe-links.yaml')}` : '';
  // Say so when the driver comes from the DSN's scheme: that is the database `serve` opens.
  const byScheme = config.db.driver !== 'sqlite3' && settingText(SETTINGS.dbDriver, env, yaml) === undefined;
  const database = `${config.db.driver} database${byScheme ? ' (chosen by the JOE_DB_DSN scheme)' : ''}`;
  const results: CheckResult[] = [
    ok('configuration', `${config.authMode} sign-in, ${database}, HTTP on ${config.http.host}:${config.http.port}${file}`),
  ];
  results.push(...checkBaseUrl(config, settingText(SETTINGS.baseUrl, env, yaml) !== undefined));
  results.push(...checkSqliteFiles(config, cwd));
  results.push(...(await checkDatabase(config, cwd, migrationNames().length)));
  results.push(await checkSignIn(config));
  results.push(await checkMail(config.mail));
  return results;
}
