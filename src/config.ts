import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseCidrList, type CidrList } from './domain/clientIp.js';
import { parseDuration } from './domain/duration.js';

/**
 * Configuration (docs/server.md#configuration): every setting from a `JOE_*` environment
 * variable or `joe-links.yaml`, environment first, validated once. A bad value
 * stops startup with a message naming the variable and the expected form.
 */

export type DbDriver = 'sqlite3' | 'mysql' | 'postgres';
export type AuthMode = 'local' | 'oidc' | 'proxy';
export type LlmProvider = 'anthropic' | 'openai' | 'openai-compatible';
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormatSetting = (typeof LOG_FORMATS)[number];

export interface DbConfig {
  driver: DbDriver;
  dsn: string;
}

export interface Config {
  http: { host: string; port: number };
  db: DbConfig;
  baseUrl: string;
  authMode: AuthMode;
  oidc: {
    issuer: string | null;
    clientId: string | null;
    clientSecret: string | null;
    redirectUrl: string;
    adminGroups: string[];
    groupsClaim: string;
  };
  authProxyHeader: string | null;
  trustedProxies: CidrList;
  shutdownTimeoutMs: number;
  /** Periodic-job scheduling: how often each replica renews its leases, and the session sweep period. */
  jobs: { tickMs: number; sessionSweepIntervalMs: number };
  apiRateLimit: number;
  backup: { dir: string; keep: number };
  adminEmail: string | null;
  sessionLifetimeMs: number;
  insecureCookies: boolean;
  shortKeyword: string;
  clickRetentionDays: number | null;
  healthChecks: { enabled: boolean; intervalMs: number; timeoutMs: number; allowPrivate: boolean };
  llm: { provider: LlmProvider | null; apiKey: string; model: string; baseUrl: string; prompt: string };
  stateLinks: {
    publicOrigin: string;
    targetPath: string;
    missingPath: string;
    payloadPrefix: string;
    unopenedTtlMs: number;
    intervalMs: number;
    maxBytes: number;
    rateWindowMs: number;
    maxAttempts: number;
    maxCreates: number;
    maxReads: number;
  };
  /** Owner notification mail (docs/notifications.md#mail); `smtp` null: notifications stay in the app. */
  mail: { smtp: SmtpSettings | null; from: string | null };
  webhooks: { retryBaseMs: number; allowPrivate: boolean };
  logLevel: string;
  /** `auto`: readable lines on a terminal, JSON otherwise (docs/operations.md#logs). */
  logFormat: LogFormatSetting;
}

export interface SmtpSettings {
  host: string;
  port: number;
  /** smtps: TLS from the first byte; smtp: STARTTLS when the server offers it. */
  secure: boolean;
  user: string | null;
  pass: string | null;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Source = Record<string, string | undefined>;

/** One setting: its environment name, its YAML path, and where it was read from. */
interface Setting {
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
  trustedProxies: S('JOE_TRUSTED_PROXIES', 'trusted_proxies'),
  shutdownTimeout: S('JOE_SHUTDOWN_TIMEOUT', 'shutdown_timeout'),
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
  webhookRetryBase: S('JOE_WEBHOOK_RETRY_BASE', 'webhook.retry_base'),
  webhookAllowPrivate: S('JOE_WEBHOOK_ALLOW_PRIVATE', 'webhook.allow_private'),
  logFormat: S('JOE_LOG_FORMAT', 'log_format'),
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

class Reader {
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

function parseListenAddr(text: string): { host: string; port: number } {
  const m = /^(.*):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    throw new ConfigError(`invalid JOE_HTTP_ADDR: "${text}" (expected host:port or :port, e.g. :8080)`);
  }
  const host = m[1]!.replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? '0.0.0.0' : host, port };
}

function absoluteUrl(s: Setting, text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new ConfigError(`invalid ${s.env}: "${text}" (expected an absolute http(s) URL)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError(`invalid ${s.env}: "${text}" (expected an absolute http(s) URL)`);
  }
  return text.replace(/\/+$/, '');
}

const SMTP_FORM = '(expected smtp://user:pass@host:port or smtps://user:pass@host:port)';

/** JOE_SMTP_URL; the error never repeats the URL, which may hold a password. */
function parseSmtpUrl(text: string): SmtpSettings {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new ConfigError(`invalid JOE_SMTP_URL: not a URL ${SMTP_FORM}`);
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') {
    throw new ConfigError(`invalid JOE_SMTP_URL: scheme "${u.protocol.replace(/:$/, '')}" ${SMTP_FORM}`);
  }
  if (u.hostname === '') throw new ConfigError(`invalid JOE_SMTP_URL: no host ${SMTP_FORM}`);
  if ((u.pathname !== '' && u.pathname !== '/') || u.search !== '' || u.hash !== '') {
    throw new ConfigError(`invalid JOE_SMTP_URL: unexpected path or query ${SMTP_FORM}`);
  }
  const secure = u.protocol === 'smtps:';
  let user: string | null;
  let pass: string | null;
  try {
    user = u.username === '' ? null : decodeURIComponent(u.username);
    pass = u.password === '' ? null : decodeURIComponent(u.password);
  } catch {
    throw new ConfigError(`invalid JOE_SMTP_URL: bad percent-encoding in the user or password ${SMTP_FORM}`);
  }
  return { host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: u.port === '' ? (secure ? 465 : 587) : Number(u.port), secure, user, pass };
}

/** `dana@example.com` or `Joe Links <links@example.com>`, one line. */
const MAIL_FROM = /^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/;

function mailSettings(r: Reader): Config['mail'] {
  const smtpRaw = r.opt(SETTINGS.smtpUrl);
  const from = r.opt(SETTINGS.mailFrom);
  if (from !== null && !MAIL_FROM.test(from)) {
    throw new ConfigError(
      `invalid JOE_MAIL_FROM: "${from}" (expected an address such as links@example.com or Joe Links <links@example.com>)`,
    );
  }
  if (smtpRaw === null) return { smtp: null, from };
  const smtp = parseSmtpUrl(smtpRaw);
  if (from === null) throw new ConfigError('JOE_MAIL_FROM is required when JOE_SMTP_URL is set');
  return { smtp, from };
}

/** Database settings only: what `migrate` and the other maintenance commands need. */
export function loadDbConfig(env: Source, yaml: Record<string, string>): DbConfig {
  const r = new Reader(env, yaml);
  const driver = r.str(SETTINGS.dbDriver, 'sqlite3');
  if (driver !== 'sqlite3' && driver !== 'mysql' && driver !== 'postgres') {
    throw new ConfigError(`unsupported DB driver "${driver}": must be sqlite3, mysql, or postgres`);
  }
  const dsn = r.opt(SETTINGS.dbDsn);
  if (dsn === null && driver !== 'sqlite3') throw new ConfigError(`JOE_DB_DSN is required for driver ${driver}`);
  return { driver, dsn: dsn ?? './joe-links.db' };
}

/** Backup settings only: what `backup` and `restore` need besides the database. */
export function loadBackupConfig(env: Source, yaml: Record<string, string>): Config['backup'] {
  const r = new Reader(env, yaml);
  return { dir: r.str(SETTINGS.backupDir, './backups'), keep: r.int(SETTINGS.backupKeep, 24, 1) };
}

/**
 * Mail settings only: whether a change made by a CLI command notifies by mail
 * as the server's would (docs/notifications.md#mail).
 */
export function loadMailConfig(env: Source, yaml: Record<string, string>): Config['mail'] {
  return mailSettings(new Reader(env, yaml));
}

export interface LoadOptions {
  env?: Source;
  /** Directory searched for `joe-links.yaml`; default the working directory. */
  cwd?: string;
}

export function loadYaml(opts: LoadOptions = {}): Record<string, string> {
  return readYamlFile(resolve(opts.cwd ?? process.cwd(), 'joe-links.yaml'));
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const yaml = loadYaml(opts);
  const r = new Reader(env, yaml);
  const db = loadDbConfig(env, yaml);
  const http = parseListenAddr(r.str(SETTINGS.httpAddr, ':8080'));
  const baseUrlRaw = r.opt(SETTINGS.baseUrl);
  const baseUrl = baseUrlRaw ? absoluteUrl(SETTINGS.baseUrl, baseUrlRaw) : `http://localhost:${http.port}`;

  const issuer = r.opt(SETTINGS.oidcIssuer);
  const clientId = r.opt(SETTINGS.oidcClientId);
  const clientSecret = r.opt(SETTINGS.oidcClientSecret);
  const oidcSet = [
    [SETTINGS.oidcIssuer.env, issuer],
    [SETTINGS.oidcClientId.env, clientId],
    [SETTINGS.oidcClientSecret.env, clientSecret],
  ] as const;
  const present = oidcSet.filter(([, v]) => v !== null);
  if (present.length > 0 && present.length < 3) {
    const missing = oidcSet.filter(([, v]) => v === null).map(([k]) => k);
    // The issuer is what turns OIDC mode on, so when it is set it alone is named as the reason
    // (`JOE_OIDC_CLIENT_SECRET is required when JOE_OIDC_ISSUER is set`, docs/server.md#configuration).
    const cause = issuer !== null ? [SETTINGS.oidcIssuer.env] : present.map(([k]) => k);
    throw new ConfigError(
      `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required when ${cause.join(' and ')} ${cause.length > 1 ? 'are' : 'is'} set`,
    );
  }
  if (issuer) absoluteUrl(SETTINGS.oidcIssuer, issuer);
  const redirectRaw = r.opt(SETTINGS.oidcRedirectUrl);
  const redirectUrl = redirectRaw ? absoluteUrl(SETTINGS.oidcRedirectUrl, redirectRaw) : `${baseUrl}/auth/callback`;

  let trustedProxies: CidrList;
  const trustedRaw = r.str(SETTINGS.trustedProxies, '');
  try {
    trustedProxies = parseCidrList(trustedRaw);
  } catch {
    throw new ConfigError(`invalid JOE_TRUSTED_PROXIES: "${trustedRaw}" (expected a comma list of IP addresses or CIDRs)`);
  }

  const authProxyHeader = r.opt(SETTINGS.authProxyHeader);
  if (authProxyHeader !== null) {
    if (issuer !== null) {
      throw new ConfigError('JOE_AUTH_PROXY_HEADER and JOE_OIDC_ISSUER cannot both be set: choose forward-auth or OIDC');
    }
    if (trustedProxies.length === 0) {
      throw new ConfigError('JOE_AUTH_PROXY_HEADER requires JOE_TRUSTED_PROXIES: the header is believed only from trusted proxies');
    }
    if (!/^[A-Za-z0-9-]+$/.test(authProxyHeader)) {
      throw new ConfigError(`invalid JOE_AUTH_PROXY_HEADER: "${authProxyHeader}" (expected a header name such as X-Forwarded-Email)`);
    }
  }

  const sessionLifetimeMs = r.duration(SETTINGS.sessionLifetime, 720 * 3_600_000);
  if (sessionLifetimeMs <= 0) throw new ConfigError('invalid JOE_SESSION_LIFETIME: must be greater than zero');

  const retentionRaw = r.opt(SETTINGS.clickRetention);
  let clickRetentionDays: number | null = null;
  if (retentionRaw !== null) {
    if (!/^\d+$/.test(retentionRaw)) {
      throw new ConfigError(`invalid JOE_CLICK_RETENTION: "${retentionRaw}" (expected a whole number of days, 0 to disable)`);
    }
    const days = Number(retentionRaw);
    if (days > 0 && days < 90) {
      throw new ConfigError(
        `invalid JOE_CLICK_RETENTION: ${days} is below the 90-day floor (staleness views look back 90 days); use 0 to disable or at least 90`,
      );
    }
    clickRetentionDays = days === 0 ? null : days;
  }

  const llmRaw = r.opt(SETTINGS.llmProvider);
  if (llmRaw !== null && llmRaw !== 'anthropic' && llmRaw !== 'openai' && llmRaw !== 'openai-compatible') {
    throw new ConfigError(`unsupported LLM provider "${llmRaw}" in JOE_LLM_PROVIDER: must be anthropic, openai, or openai-compatible`);
  }
  const llmProvider = llmRaw as LlmProvider | null;
  const llmBase = r.opt(SETTINGS.llmBaseUrl);

  const intervalMs = Math.max(r.duration(SETTINGS.healthCheckInterval, 24 * 3_600_000), 3_600_000);
  // Durations are unsigned everywhere else, but the documented rule for this one is
  // "≤0 → 10s", so a negative value falls back to the default instead of stopping startup.
  const timeoutText = r.raw(SETTINGS.healthCheckTimeout);
  const negativeTimeout = timeoutText?.startsWith('-') === true && parseDuration(timeoutText.slice(1)) !== null;
  const timeoutRaw = negativeTimeout ? 0 : r.duration(SETTINGS.healthCheckTimeout, 10_000);
  const timeoutMs = timeoutRaw <= 0 ? 10_000 : Math.min(timeoutRaw, 30_000);

  const publicOriginRaw = r.opt(SETTINGS.publicOrigin);
  const publicOrigin = publicOriginRaw ? absoluteUrl(SETTINGS.publicOrigin, publicOriginRaw) : baseUrl;
  const targetPath = r.str(SETTINGS.linkTargetPath, '/_/state');
  const missingPath = r.str(SETTINGS.linkMissingPath, '/_/link-missing');
  for (const [s, v] of [
    [SETTINGS.linkTargetPath, targetPath],
    [SETTINGS.linkMissingPath, missingPath],
  ] as const) {
    if (!v.startsWith('/') || v.startsWith('//') || /[\s\\#?]/.test(v)) {
      throw new ConfigError(`invalid ${s.env}: "${v}" (expected an absolute path such as /app)`);
    }
  }
  if (missingPath === '/s' || missingPath.startsWith('/s/')) {
    throw new ConfigError(`invalid LINK_MISSING_PATH: "${missingPath}" (must not be under /s/)`);
  }
  const payloadPrefix = r.str(SETTINGS.payloadPrefix, '#state=v1.');
  if (!/^#[A-Za-z0-9._~=-]{0,32}$/.test(payloadPrefix)) {
    throw new ConfigError(`invalid PAYLOAD_PREFIX: "${payloadPrefix}" (expected # followed by up to 32 of A-Z a-z 0-9 . _ ~ = -)`);
  }

  const tickMs = r.duration(SETTINGS.jobTick, 20_000);
  if (tickMs < 100) throw new ConfigError(`invalid JOE_JOB_TICK: "${r.raw(SETTINGS.jobTick)}" (expected at least 100ms)`);
  const sessionSweepIntervalMs = r.duration(SETTINGS.sessionSweepInterval, 3_600_000);
  if (sessionSweepIntervalMs < 1_000) {
    throw new ConfigError(`invalid JOE_SESSION_SWEEP_INTERVAL: "${r.raw(SETTINGS.sessionSweepInterval)}" (expected at least 1s)`);
  }

  const logLevel = r.str(SETTINGS.logLevel, 'info');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`invalid JOE_LOG_LEVEL: "${logLevel}" (expected one of fatal, error, warn, info, debug, trace, silent)`);
  }
  const logFormat = r.str(SETTINGS.logFormat, 'auto');
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) {
    throw new ConfigError(`invalid JOE_LOG_FORMAT: "${logFormat}" (expected ${LOG_FORMATS.join(', ')})`);
  }

  const mail = mailSettings(r);
  const retryBaseMs = r.duration(SETTINGS.webhookRetryBase, 10_000);
  if (retryBaseMs < 100) {
    throw new ConfigError(`invalid JOE_WEBHOOK_RETRY_BASE: "${r.raw(SETTINGS.webhookRetryBase)}" (expected at least 100ms)`);
  }

  const adminGroups = r
    .str(SETTINGS.oidcAdminGroups, '')
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');

  return {
    http,
    db,
    baseUrl,
    authMode: issuer ? 'oidc' : authProxyHeader ? 'proxy' : 'local',
    oidc: {
      issuer,
      clientId,
      clientSecret,
      redirectUrl,
      adminGroups,
      groupsClaim: r.str(SETTINGS.oidcGroupsClaim, 'groups'),
    },
    authProxyHeader: authProxyHeader?.toLowerCase() ?? null,
    trustedProxies,
    shutdownTimeoutMs: r.duration(SETTINGS.shutdownTimeout, 15_000),
    jobs: { tickMs, sessionSweepIntervalMs },
    apiRateLimit: r.int(SETTINGS.apiRateLimit, 600),
    backup: loadBackupConfig(env, yaml),
    adminEmail: r.opt(SETTINGS.adminEmail),
    sessionLifetimeMs,
    insecureCookies: r.bool(SETTINGS.insecureCookies, false),
    shortKeyword: r.str(SETTINGS.shortKeyword, ''),
    clickRetentionDays,
    healthChecks: {
      enabled: r.bool(SETTINGS.healthChecksEnabled, true),
      intervalMs,
      timeoutMs,
      allowPrivate: r.bool(SETTINGS.healthCheckAllowPrivate, false),
    },
    llm: {
      provider: llmProvider,
      apiKey: r.str(SETTINGS.llmApiKey, ''),
      model: r.str(SETTINGS.llmModel, llmProvider === 'anthropic' ? 'claude-haiku-4-5-20251001' : 'gpt-4o-mini'),
      baseUrl: (llmBase ? absoluteUrl(SETTINGS.llmBaseUrl, llmBase) : 'https://api.openai.com').replace(/\/+$/, ''),
      prompt: r.str(SETTINGS.llmPrompt, ''),
    },
    stateLinks: {
      publicOrigin,
      targetPath,
      missingPath,
      payloadPrefix,
      unopenedTtlMs: r.int(SETTINGS.unopenedTtlMs, 30 * 86_400_000, 1),
      intervalMs: r.int(SETTINGS.backupIntervalMs, 3_600_000, 1000),
      maxBytes: r.int(SETTINGS.stateMaxBytes, 1024 ** 3, 1),
      rateWindowMs: r.duration(SETTINGS.stateRateWindow, 60_000),
      maxAttempts: r.int(SETTINGS.stateMaxAttempts, 120, 1),
      maxCreates: r.int(SETTINGS.stateMaxCreates, 30, 1),
      maxReads: r.int(SETTINGS.stateMaxReads, 600, 1),
    },
    mail,
    webhooks: { retryBaseMs, allowPrivate: r.bool(SETTINGS.webhookAllowPrivate, false) },
    logLevel,
    logFormat: logFormat as LogFormatSetting,
  };
}
