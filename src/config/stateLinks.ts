import { absoluteUrl } from './addresses.js';
import { ConfigError, SETTINGS, type Reader } from './sources.js';

/**
 * App-state short links (docs/state-links.md#limits-and-configuration): where their redirects
 * lead, how long an unopened one lives, and their limits. These settings keep their own names.
 */

export interface StateLinkSettings {
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
}

export function stateLinkSettings(r: Reader, baseUrl: string): StateLinkSettings {
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
  return {
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
  };
}
