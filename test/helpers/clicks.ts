import type { Metrics } from '../../src/metrics.js';
import type { Store } from '../../src/store/index.js';
import type { ClickEvent } from '../../src/workers/clickWriter.js';
import { createLink } from './links.js';

/** When the i-th test click happens: clickEvent(…, i) is at CLICK_EPOCH + i ms. */
export const CLICK_EPOCH = Date.UTC(2026, 0, 1);

/** A redirect's click with a referrer carrying a query and fragment that must not be stored. */
export const clickEvent = (linkId: string, i = 0): ClickEvent => ({
  linkId,
  userId: null,
  ip: `198.51.100.${i % 250}`,
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
  referer: 'https://ref.test/a?token=secret#top',
  at: CLICK_EPOCH + i,
});

/** A link to click, with an owner of its own. */
export async function newClickedLink(store: Store, slug: string) {
  const u = await store.users.create({ email: `${slug}@example.com` });
  return createLink(store, { slug, url: 'https://x.test' }, u.id);
}

/** A metric's value summed over its labels. */
export async function metricTotal(m: Metrics, name: string): Promise<number> {
  const metric = (await m.registry.getMetricsAsJSON()).find((x) => x.name === name);
  return (metric?.values ?? []).reduce((s, v) => s + v.value, 0);
}

/** A histogram's observation count and sum, as /metrics would show them. */
export async function histogramTotals(m: Metrics, name: string): Promise<{ count: number; sum: number }> {
  const metric = (await m.registry.getMetricsAsJSON()).find((x) => x.name === name);
  const values = (metric?.values ?? []) as Array<{ metricName?: string; value: number }>;
  const value = (suffix: string) => values.find((v) => v.metricName === `${name}_${suffix}`)?.value ?? 0;
  return { count: value('count'), sum: value('sum') };
}
