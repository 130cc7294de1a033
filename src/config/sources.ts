import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseDuration } from '../domain/duration.js';

/**
 * Where each setting is read (docs/server.md#configuration): its `JOE_*` environment variable,
 * else its key in `joe-links.yaml`, else its default; and how its text becomes a value.
 */

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type Source = Record<string, string | undefined>;

/** One setting: its environment name, its YAML path, and where it was read from. */
export interface Setting {
  env: string;
  yaml: string;
}

const S = (env: string, yaml: string): Setting => ({ env, yaml });

export const SETTINGS = {
  httpAddr: S('JOE_HTTP_ADDR', 'http.addr'),
  dbDriver: S('JOE_DB_DRIVER', 'db.driver'),
  dbDsn: S('JOE_DB_DSN', 'db.dsn'),
  baseUrl: S('JOE_BASE_URL', 'base_url'),
  oidcIssuer: S('JOE_OIDC_ISSUER', 'oidc.issuer'),
  oidcClientId: S('JOE_OIDC_CLIENT_ID', 'oidc.client_id'),
  oidcClientSecret: S('JOE_OIDC_CLIENT_SECRET', 'oidc.client_secret'),
  oidcRedirectUrl: S('JOE_OIDC_REDIRECT_URL', 'oidc.redirect_url'),
  oidcAdminGroups: S('JOE_OIDC_ADMIN_GROUPS', 'oidc.admin_groups'),
  oidcGroupsClaim: S('JOE_OIDC_GROUPS_CLAIM', 'oidc.groups_claim'),
  authProxyHeader: S('JOE_AUTH_PROXY_HEADER', 'auth.proxy_header'),
  forwardAuthGroupsHeader: S('JOE_FORWARD_AUTH_GROUPS_HEADER', 'forward_auth.groups_header'),
  trustedProxies: S('JOE_TRUSTED_PROXIES', 'trusted_proxies'),
  shutdownTimeout: S('JOE_SHUTDOWN_TIMEOUT', 'shutdown_timeout'),
  shutdownDrain: S('JOE_SHUTDOWN_DRAIN', 'shutdown_drain'),
  jobTick: S('JOE_JOB_TICK', 'job.tick'),
  sessionSweepInterval: S('JOE_SESSION_SWEEP_INTERVAL', 'session.sweep_interval'),
  apiRateLimit: S('JOE_API_RATE_LIMIT', 'api.rate_limit'),
  backupDir: S('JOE_BACKUP_DIR', 'backup.dir'),
  backupKeep: S('JOE_BACKUP_KEEP', 'backup.keep'),
  adminEmail: S('JOE_ADMIN_EMAIL', 'admin_email'),
  sessionLifetime: S('JOE_SESSION_LIFETIME', 'session.lifetime'),
  insecureCookies: S('JOE_INSECURE_COOKIES', 'insecure_cookies'),
  shortKeyword: S('JOE_SHORT_KEYWORD', 'short_keyword'),
  clickRetention: S('JOE_CLICK_RETENTION', 'click_retention'),
  healthChecksEnabled: S('JOE_HEALTH_CHECKS_ENABLED', 'health_checks.enabled'),
  healthCheckInterval: S('JOE_HEALTH_CHECK_INTERVAL', 'health_check.interval'),
  healthCheckTimeout: S('JOE_HEALTH_CHECK_TIMEOUT', 'health_check.timeout'),
  healthCheckAllowPrivate: S('JOE_HEALTH_CHECK_ALLOW_PRIVATE', 'health_check.allow_private'),
  llmProvider: S('JOE_LLM_PROVIDER', 'llm.provider'),
  llmApiKey: S('JOE_LLM_API_KEY', 'llm.api_key'),
  llmModel: S('JOE_LLM_MODEL', 'llm.model'),
  llmBaseUrl: S('JOE_LLM_BASE_URL', 'llm.base_url'),
  llmPrompt: S('JOE_LLM_PROMPT', 'llm.prompt'),
  logLevel: S('JOE_LOG_LEVEL', 'log_level'),
  smtpUrl: S('JOE_SMTP_URL', 'smtp.url'),
  mailFrom: S('JOE_MAIL_FROM', 'mail.from'),
  mailDigestWindow: S('JOE_MAIL_DIGEST_WINDOW', 'mail.digest_window'),
  mailHourlyCap: S('JOE_MAIL_HOURLY_CAP', 'mail.hourly_cap'),
  webhookRetryBase: S('JOE_WEBHOOK_RETRY_BASE', 'webhook.retry_base'),
  webhookAllowPrivate: S('JOE_WEBHOOK_ALLOW_PRIVATE', 'webhook.allow_private'),
  logFormat: S('JOE_LOG_FORMAT', 'log_format'),
  accessLog: S('JOE_ACCESS_LOG', 'access_log'),
  publicOrigin: S('PUBLIC_ORIGIN', 'state_links.public_origin'),
  linkTargetPath: S('LINK_TARGET_PATH', 'state_links.link_target_path'),
  linkMissingPath: S('LINK_MISSING_PATH', 'state_links.link_missing_path'),
  payloadPrefix: S('PAYLOAD_PREFIX', 'state_links.payload_prefix'),
  unopenedTtlMs: S('UNOPENED_TTL_MS', 'state_links.unopened_ttl_ms'),
  backupIntervalMs: S('BACKUP_INTERVAL_MS', 'state_links.backup_interval_ms'),
  stateMaxBytes: S('JOE_STATE_LINKS_MAX_BYTES', 'state_links.max_bytes'),
  stateRateWindow: S('JOE_STATE_LINKS_RATE_WINDOW', 'state_links.rate_window'),
  stateMaxAttempts: S('JOE_STATE_LINKS_MAX_ATTEMPTS', 'state_links.max_attempts'),
  stateMaxCreates: S('JOE_STATE_LINKS_MAX_CREATES', 'state_links.max_creates'),
  stateMaxReads: S('JOE_STATE_LINKS_MAX_READS', 'state_links.max_reads'),
} as const;

/** Flattens `joe-links.yaml` into `{ "db.dsn": "…" }` so every setting has one lookup key. */
function flattenYaml(value: unknown, prefix: string, out: Record<string, string>): void {
  if (value === null || value === undefined) return;
  if (typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      flattenYaml(v, prefix ? `${prefix}.${k}` : k, out);
    }
    return;
  }
  out[prefix] = Array.isArray(value) ? value.map(String).join(',') : String(value);
}

export function readYamlFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ConfigError(`invalid ${path}: ${(e as Error).message}`);
  }
  const flat: Record<string, string> = {};
  flattenYaml(doc, '', flat);
  const known = new Set(Object.values(SETTINGS).map((s) => s.yaml));
  for (const key of Object.keys(flat)) {
    if (!known.has(key)) throw new ConfigError(`unknown setting "${key}" in ${path}`);
  }
  return flat;
}

export interface LoadOptions {
  env?: Source;
  /** Directory searched for `joe-links.yaml`; default the working directory. */
  cwd?: string;
}

export function loadYaml(opts: LoadOptions = {}): Record<string, string> {
  return readYamlFile(resolve(opts.cwd ?? process.cwd(), 'joe-links.yaml'));
}

/** Typed reads of settings; every bad value throws a ConfigError naming its variable and the form expected. */
export class Reader {
  constructor(
    private readonly env: Source,
    private readonly yaml: Record<string, string>,
  ) {}

  /**
   * The setting's text, trimmed: the environment's unless it is blank, then
   * the file's. A blank variable counts as unset, so `JOE_X=` (what a compose
   * file templating an unset value writes) falls through to the file and the
   * default instead of overriding them with nothing.
   */
  raw(s: Setting): string | undefined {
    const fromEnv = this.env[s.env]?.trim();
    return fromEnv ? fromEnv : this.yaml[s.yaml]?.trim();
  }

  str(s: Setting, fallback: string): string {
    const v = this.raw(s);
    return v === undefined || v === '' ? fallback : v;
  }

  opt(s: Setting): string | null {
    const v = this.raw(s);
    return v === undefined || v === '' ? null : v;
  }

  bool(s: Setting, fallback: boolean): boolean {
    const v = this.raw(s)?.toLowerCase();
    if (v === undefined || v === '') return fallback;
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off'].includes(v)) return false;
    throw new ConfigError(`invalid ${s.env}: "${this.raw(s)}" (expected true or false)`);
  }

  int(s: Setting, fallback: number, min = 0): number {
    const v = this.raw(s);
    if (v === undefined || v === '') return fallback;
    if (!/^-?\d+$/.test(v) || Number(v) < min || !Number.isSafeInteger(Number(v))) {
      throw new ConfigError(`invalid ${s.env}: "${v}" (expected an integer ≥ ${min})`);
    }
    return Number(v);
  }

  duration(s: Setting, fallbackMs: number): number {
    const v = this.raw(s);
    if (v === undefined || v === '') return fallbackMs;
    const ms = parseDuration(v);
    if (ms === null) {
      throw new ConfigError(`invalid ${s.env}: "${v}" (expected a duration such as 30s, 10m, 720h, 1h30m)`);
    }
    return ms;
  }
}

/** A setting's text as given (environment, then `joe-links.yaml`), or undefined when unset. */
export function settingText(s: Setting, env: Source, yaml: Record<string, string>): string | undefined {
  return new Reader(env, yaml).raw(s) || undefined;
}
