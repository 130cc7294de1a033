/** Durations are number+unit pairs: `30d`, `720h`, `1h30m`, `500ms` (docs/server.md#configuration). */
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
const PAIR = /(\d+(?:\.\d+)?)(ms|d|h|m|s)/y;

/** Returns milliseconds, or null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const s = text.trim();
  if (s === '') return null;
  if (s === '0') return 0;
  let total = 0;
  PAIR.lastIndex = 0;
  while (PAIR.lastIndex < s.length) {
    const start = PAIR.lastIndex;
    const m = PAIR.exec(s);
    if (!m || m.index !== start) return null;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  return Math.round(total);
}

export function formatDuration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}
