import { spawnSync } from 'node:child_process';
import { benchAnalytics, benchUserAgentParsing } from './analytics.js';
import { benchImportLatency, benchImports } from './imports.js';
import { benchJsonImport } from './importJson.js';
import { benchFrontVsRoute, benchPostgresRedirects, benchRedirects, tailBoundMs, type ScenarioResult } from './redirect.js';
import { benchRollingRestart } from './rolling.js';

/**
 * `npm run bench`: one line per figure, each a ratio or bound measured in
 * this run (docs/server.md#performance-targets). Not part of `npm test`.
 */
const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-needed'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const only = process.argv.slice(2);
const want = (name: string) => only.length === 0 || only.includes(name);

const ms = (v: number) => v.toFixed(1);
const report = (prefix: string, r: ScenarioResult) => {
  console.log(
    `${prefix}_${r.name}: ratio=${r.ratio.toFixed(3)} rounds=${r.ratios.map((x) => x.toFixed(3)).join(',')} ` +
      `ours_rps=${r.oursRps.toFixed(0)} bare_rps=${r.bareRps.toFixed(0)} ours_p99_ms=${r.p99Ms.toFixed(1)}`,
  );
  // Every round's tail beside the bare server's in the round after it (docs/server.md#what-bounds-the-tail).
  r.rounds.forEach((x, i) => {
    const bound = tailBoundMs(x.bareP99Ms);
    console.log(
      `  round ${i + 1}: ours p99=${ms(x.oursP99Ms)} max=${ms(x.oursMaxMs)} loop_max=${ms(x.loopMaxMs)} ` +
        `bare p99=${ms(x.bareP99Ms)} max=${ms(x.bareMaxMs)} tail ${x.oursP99Ms <= bound ? 'ok' : 'OVER'} (bound ${ms(bound)} ms) ` +
        `cpu_us main=${ms(x.cpu.mainUs)} click=${ms(x.cpu.clickUs)} other=${ms(x.cpu.otherUs)} bare=${ms(x.bareCpuUs)}`,
    );
  });
};
if (want('redirect')) for (const r of await benchRedirects()) report('redirect', r);
if (want('redirect') || want('redirect_postgres')) {
  const pg = await benchPostgresRedirects();
  if (pg) report('redirect_postgres', pg);
  else console.log('redirect_postgres: skipped (JOE_TEST_PG_DSN not set)');
}

// The go-link front against a plain Fastify route: only when named (`npm run bench redirect_front`).
if (only.includes('redirect_front')) {
  const { front, route } = await benchFrontVsRoute();
  report('redirect_front', front);
  report('redirect_route_only', route);
}

if (want('analytics')) {
  const r = await benchAnalytics();
  console.log(`analytics_seed_rows=1000000 (one link: 200000 in 90 days) seed_s=${(r.seedMs / 1000).toFixed(1)}`);
  for (const [name, v] of r.served) console.log(`analytics_${name}_ms=${ms(v)} (target < 100, SQLite, 1M rows)`);
  for (const [name, v] of r.raw) console.log(`analytics_raw_only_${name}_ms=${ms(v)} (no rollups: on-the-fly over raw rows)`);
  console.log(`analytics_rollup_build_s=${(r.rollupBuildMs / 1000).toFixed(1)} (click-rollup job, first run over 90 days)`);
  console.log(`analytics_rollup_check_ms=${ms(r.rollupCheckMs)} (click-rollup job, hourly run with nothing to rebuild)`);
  console.log(`analytics_export_rows=${r.exportRows} export_ms=${ms(r.exportMs)}`);
  console.log(`analytics_export_rss_growth_mb=${r.exportRssGrowthMb.toFixed(1)} (target < 64)`);
  const ua = benchUserAgentParsing();
  console.log(`analytics_ua_parse_ns=${ua.realNs.toFixed(0)} hostile_512_ns=${ua.hostileNs.toFixed(0)} (one pass per UA string)`);
}

if (want('import')) {
  const l = await benchImportLatency();
  console.log(
    `import_rest_rows=${l.rows} import_s=${(l.importMs / 1000).toFixed(1)} healthz_worst_ms=${l.worstHealthzMs.toFixed(1)} ` +
      `redirect_worst_ms=${l.worstRedirectMs.toFixed(1)} (target < 500 each, SQLite; ${l.probes} probes while importing)`,
  );
  const r = await benchImports();
  console.log(
    `import_golink_links=${r.links} first_s=${(r.firstMs / 1000).toFixed(1)} (target < 30, SQLite) ` +
      `again_s=${(r.againMs / 1000).toFixed(1)} (every row unchanged) rss_growth_mb=${r.rssGrowthMb.toFixed(1)}`,
  );
}

// Minutes long, so only when named: `npm run bench import-json` (run node with --expose-gc for a steadier baseline).
if (only.includes('import-json')) {
  for (const [shape, padding] of [
    ['2kib_rows', 560],
    ['small_rows', 0],
  ] as const) {
    const r = await benchJsonImport(undefined, padding);
    console.log(
      `import_json_${shape}: file_mib=${r.fileMiB.toFixed(0)} rows=${r.rows} import_s=${(r.importMs / 1000).toFixed(1)} ` +
        `rss_before_mib=${r.rssBeforeMiB.toFixed(0)} peak_rss_mib=${r.peakRssMiB.toFixed(0)} ` +
        `longest_block_ms=${r.longestBlockMs.toFixed(0)} healthz_worst_ms=${r.worstHealthzMs.toFixed(0)}`,
    );
  }
}

// Needs caddy, wrk and PostgreSQL, and takes minutes: only when named, `npm run bench rolling`.
// Once with the default drain, once without one, so the figure shows what the drain does.
if (only.includes('rolling')) {
  if (!process.env.JOE_TEST_PG_DSN) console.log('rolling: skipped (JOE_TEST_PG_DSN not set)');
  else {
    for (const drain of [undefined, '0s']) {
      const r = await benchRollingRestart(drain);
      console.log(
        `rolling_restart drain=${r.drain}: requests=${r.requests} failed=${r.failed} socket_errors=${r.socketErrors} ` +
          `rps=${r.rps.toFixed(0)} stored_clicks=${r.stored} ` +
          r.restarts.map((x) => `replica${x.replica}: exit=${x.exitCode} stop_ms=${x.stopMs} ready_ms=${x.readyMs}`).join(' '),
      );
    }
  }
}
