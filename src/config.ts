import { parseDuration } from './domain/duration.js';
import { DEFAULT_MAIL_PACING, type MailPacing } from './domain/notifications.js';
import { absoluteUrl, parseListenAddr } from './config/addresses.js';
import { authSettings, type AuthSettings } from './config/auth.js';
import { mailSettings, type MailConfig } from './config/mail.js';
import { ConfigError, loadYaml, Reader, SETTINGS, type LoadOptions, type Source } from './config/sources.js';
import { stateLinkSettings, type StateLinkSettings } from './config/stateLinks.js';

/**
 * Configuration (docs/server.md#configuration): every setting from a `JOE_*` environment
 * variable or `joe-links.yaml`, environment first, validated once. A bad value
 * stops startup with a message naming the variable and the expected form. How a setting is
 * read is config/sources.ts; the rules of sign-in, mail and state links are config/'s too.
 */

export type DbDriver = 'sqlite3' | 'mysql' | 'postgres';
export type LlmProvider = 'anthropic' | 'openai' | 'openai-compatible';
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;

/** The longest `JOE_SHUTDOWN_DRAIN` accepted. */
const MAX_SHUTDOWN_DRAIN_MS = 600_000;
export type LogFormatSetting = (typeof LOG_FORMATS)[number];

export interface DbConfig {
  driver: DbDriver;
  dsn: string;
}

export interface Config extends AuthSettings {
  http: { host: string; port: number };
  db: DbConfig;
  baseUrl: string;
  shutdownTimeoutMs: number;
  /**
   * How long `serve` keeps answering every request after SIGTERM/SIGINT while /readyz already
   * answers 503, so a load balancer stops sending before the listener closes (docs/server.md#shutdown).
   */
  shutdownDrainMs: number;
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
  stateLinks: StateLinkSettings;
  mail: MailConfig;
  /** How often one person is mailed at most (docs/notifications.md#how-much-mail). */
  mailPacing: MailPacing;
  webhooks: { retryBaseMs: number; allowPrivate: boolean };
  logLevel: string;
  /** `auto`: readable lines on a terminal, JSON otherwise (docs/operations.md#logs). */
  logFormat: LogFormatSetting;
  /** One log line per request: method, route pattern, status, milliseconds (off by default). */
  accessLog: boolean;
}

/** The URL schemes a server DSN may carry, and the driver each one means. */
const SCHEME_DRIVERS: Record<string, DbDriver> = { postgres: 'postgres', postgresql: 'postgres', mysql: 'mysql', mariadb: 'mysql' };
const GO_MYSQL_DSN = /^[^/@]*@tcp\(/;

/**
 * Database settings only: what `migrate` and the other maintenance commands need. A DSN with a
 * URL scheme names its driver, so `JOE_DB_DRIVER` may be left out; one that contradicts it stops
 * startup. A `scheme://` DSN is never taken for a SQLite file name: that file would carry the
 * server's password in its path. Messages name the scheme, never the DSN.
 */
export function loadDbConfig(env: Source, yaml: Record<string, string>): DbConfig {
  const r = new Reader(env, yaml);
  const named = r.opt(SETTINGS.dbDriver);
  if (named !== null && named !== 'sqlite3' && named !== 'mysql' && named !== 'postgres') {
    throw new ConfigError(`invalid JOE_DB_DRIVER: unsupported DB driver "${named}": must be sqlite3, mysql, or postgres`);
  }
  const dsn = r.opt(SETTINGS.dbDsn);
  // The Go driver's `user:pass@tcp(host:3306)/db` is MySQL's too.
  const scheme = dsn === null ? undefined : GO_MYSQL_DSN.test(dsn) ? 'mysql' : /^([a-z][a-z0-9+.-]*):\/\//i.exec(dsn)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    const implied = SCHEME_DRIVERS[scheme];
    if (implied === undefined) {
      throw new ConfigError(
        `invalid JOE_DB_DSN: unknown scheme "${scheme}://" (expected postgres://, postgresql://, mysql:// or mariadb://, or a SQLite file path)`,
      );
    }
    if (named !== null && named !== implied) {
      const kind = GO_MYSQL_DSN.test(dsn!) ? 'a MySQL (Go driver form)' : `a ${scheme}://`;
      throw new ConfigError(
        `JOE_DB_DRIVER is ${named} but JOE_DB_DSN is ${kind} address: set JOE_DB_DRIVER=${implied} or leave it unset, or give a DSN for ${named}`,
      );
    }
    return { driver: implied, dsn: dsn! };
  }
  const driver = named ?? 'sqlite3';
  if (dsn === null && driver !== 'sqlite3') throw new ConfigError(`JOE_DB_DSN is required for driver ${driver}`);
  return { driver, dsn: dsn ?? './joe-links.db' };
}

/** Backup settings only: what `backup` and `restore` need besides the database. */
export function loadBackupConfig(env: Source, yaml: Record<string, string>): Config['backup'] {
  const r = new Reader(env, yaml);
  return { dir: r.str(SETTINGS.backupDir, './backups'), keep: r.int(SETTINGS.backupKeep, 24, 1) };
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const yaml = loadYaml(opts);
  const r = new Reader(env, yaml);
  const db = loadDbConfig(env, yaml);
  const http = parseListenAddr(r.str(SETTINGS.httpAddr, ':8080'));
  const baseUrlRaw = r.opt(SETTINGS.baseUrl);
  const baseUrl = baseUrlRaw ? absoluteUrl(SETTINGS.baseUrl, baseUrlRaw) : `http://localhost:${http.port}`;

  const auth = authSettings(r, baseUrl);

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

  const stateLinks = stateLinkSettings(r, baseUrl);

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

  const shutdownDrainMs = r.duration(SETTINGS.shutdownDrain, 5_000);
  // A drain only bridges the load balancer's next health check; hours of it would look like a hang.
  if (shutdownDrainMs > MAX_SHUTDOWN_DRAIN_MS) {
    throw new ConfigError(`invalid JOE_SHUTDOWN_DRAIN: "${r.raw(SETTINGS.shutdownDrain)}" (expected at most 10m)`);
  }

  const mail = mailSettings(r);
  const mailPacing: MailPacing = {
    windowMs: r.duration(SETTINGS.mailDigestWindow, DEFAULT_MAIL_PACING.windowMs),
    hourlyCap: r.int(SETTINGS.mailHourlyCap, DEFAULT_MAIL_PACING.hourlyCap, 1),
  };
  if (mailPacing.windowMs < 1_000 || mailPacing.windowMs > 3_600_000) {
    throw new ConfigError(`invalid JOE_MAIL_DIGEST_WINDOW: "${r.raw(SETTINGS.mailDigestWindow)}" (expected 1s to 1h)`);
  }
  const retryBaseMs = r.duration(SETTINGS.webhookRetryBase, 10_000);
  if (retryBaseMs < 100) {
    throw new ConfigError(`invalid JOE_WEBHOOK_RETRY_BASE: "${r.raw(SETTINGS.webhookRetryBase)}" (expected at least 100ms)`);
  }

  return {
    http,
    db,
    baseUrl,
    ...auth,
    shutdownTimeoutMs: r.duration(SETTINGS.shutdownTimeout, 15_000),
    shutdownDrainMs,
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
    stateLinks,
    mail,
    mailPacing,
    webhooks: { retryBaseMs, allowPrivate: r.bool(SETTINGS.webhookAllowPrivate, false) },
    logLevel,
    logFormat: logFormat as LogFormatSetting,
    accessLog: r.bool(SETTINGS.accessLog, false),
  };
}
