import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Registry,
  type Metric,
  type MetricType,
  type MetricObjectWithValues,
  type MetricValueWithName,
} from 'prom-client';

/**
 * A histogram without labels whose observation is a scan of its bounds and
 * three additions, exposed through prom-client's registry like any other
 * metric. prom-client's own histogram copies and hashes a label object on
 * every observation, which on the redirect hot path cost more than the
 * resolver's own steps.
 */
export class PlainHistogram {
  // prom-client declares its metric types as an enum it does not export at run time.
  readonly type = 'histogram' as unknown as MetricType;
  readonly aggregator = 'sum';
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
    registry.registerMetric(this as unknown as Metric);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }

  /** Seconds since `start` (a `performance.now()` reading), observed. */
  observeSince(start: number): void {
    this.observe((performance.now() - start) / 1000);
  }

  get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const values: MetricValueWithName<string>[] = [];
    let cumulative = 0;
    for (let i = 0; i <= this.bounds.length; i++) {
      cumulative += this.counts[i]!;
      values.push({
        metricName: `${this.name}_bucket`,
        labels: { le: i < this.bounds.length ? this.bounds[i]! : '+Inf' },
        value: cumulative,
      });
    }
    values.push(
      { metricName: `${this.name}_sum`, labels: {}, value: this.sum },
      { metricName: `${this.name}_count`, labels: {}, value: this.count },
    );
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      collect: () => undefined,
      values,
    });
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/** What answered a request, as the HTTP metrics and the access log name it (docs/operations.md#metrics-and-alerts). */
export const ROUTE_KINDS = ['redirect', 'api', 'web', 'mcp', 'static', 'other'] as const;
export type RouteKind = (typeof ROUTE_KINDS)[number];
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
/** Seconds: a redirect answers in well under a millisecond, an export may take seconds. */
const HTTP_BOUNDS = [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * HTTP requests by route kind and status class, and their latency by route kind. Like
 * PlainHistogram, an observation touches only numbers in typed arrays (no label object, no
 * hashing): the redirect fast path records one per request. prom-client reads them at scrape.
 */
export class HttpMetrics {
  private readonly counts = new Float64Array(ROUTE_KINDS.length * STATUS_CLASSES.length);
  private readonly buckets = new Float64Array(ROUTE_KINDS.length * (HTTP_BOUNDS.length + 1));
  private readonly sums = new Float64Array(ROUTE_KINDS.length);
  private readonly observed = new Float64Array(ROUTE_KINDS.length);

  constructor(registry: Registry) {
    const counts = this.counts;
    // Read and cleared at each scrape, as the redirect counter's pending count is.
    const requests = new Counter({
      name: 'joelinks_http_requests_total',
      help: 'HTTP requests answered, by route kind (redirect, api, web, mcp, static, other) and status class.',
      labelNames: ['kind', 'status_class'] as const,
      registers: [registry],
      collect() {
        for (let k = 0; k < ROUTE_KINDS.length; k++) {
          for (let c = 0; c < STATUS_CLASSES.length; c++) {
            const i = k * STATUS_CLASSES.length + c;
            if (counts[i]! > 0) {
              this.inc({ kind: ROUTE_KINDS[k]!, status_class: STATUS_CLASSES[c]! }, counts[i]!);
              counts[i] = 0;
            }
          }
        }
      },
    });
    // Every kind with 2xx from the start, so dashboards see zeros rather than gaps.
    for (const kind of ROUTE_KINDS) requests.inc({ kind, status_class: '2xx' }, 0);
    registry.registerMetric(this.durationMetric() as unknown as Metric);
  }

  /** One request of `kind` (an index into ROUTE_KINDS) answered with `status` after `seconds`. */
  record(kind: number, status: number, seconds: number): void {
    const cls = Math.min(Math.max(Math.floor(status / 100) - 1, 0), STATUS_CLASSES.length - 1);
    this.counts[kind * STATUS_CLASSES.length + cls]!++;
    let b = 0;
    while (b < HTTP_BOUNDS.length && seconds > HTTP_BOUNDS[b]!) b++;
    this.buckets[kind * (HTTP_BOUNDS.length + 1) + b]!++;
    this.sums[kind] = this.sums[kind]! + seconds;
    this.observed[kind]!++;
  }

  private durationMetric() {
    const name = 'joelinks_http_request_duration_seconds';
    const help = 'Time to answer an HTTP request, by route kind.';
    const type = 'histogram' as unknown as MetricType;
    const get = (): Promise<MetricObjectWithValues<MetricValueWithName<string>>> => {
      const values: MetricValueWithName<string>[] = [];
      for (let k = 0; k < ROUTE_KINDS.length; k++) {
        const kind = ROUTE_KINDS[k]!;
        let cumulative = 0;
        for (let b = 0; b <= HTTP_BOUNDS.length; b++) {
          cumulative += this.buckets[k * (HTTP_BOUNDS.length + 1) + b]!;
          values.push({
            metricName: `${name}_bucket`,
            labels: { kind, le: b < HTTP_BOUNDS.length ? HTTP_BOUNDS[b]! : '+Inf' },
            value: cumulative,
          });
        }
        values.push(
          { metricName: `${name}_sum`, labels: { kind }, value: this.sums[k]! },
          { metricName: `${name}_count`, labels: { kind }, value: this.observed[k]! },
        );
      }
      return Promise.resolve({ name, help, type, aggregator: 'sum', collect: () => undefined, values });
    };
    const reset = () => {
      this.buckets.fill(0);
      this.sums.fill(0);
      this.observed.fill(0);
    };
    return { name, help, type, aggregator: 'sum', get, reset };
  }
}

/** Index of a route kind in ROUTE_KINDS, for `HttpMetrics.record`. */
export const ROUTE_KIND_INDEX: Readonly<Record<RouteKind, number>> = Object.freeze(
  Object.fromEntries(ROUTE_KINDS.map((k, i) => [k, i])) as Record<RouteKind, number>,
);

const REDIRECT_KIND = ROUTE_KIND_INDEX.redirect;

/**
 * The Prometheus metrics of docs/analytics.md#metrics, on a registry per app instance
 * (tests run several). No metric ever carries a slug label.
 */
export class Metrics {
  readonly registry = new Registry();

  /** Redirects answered since the last scrape, added to `redirects` when it is read: a plain number costs the hot path least. */
  private redirectsFound = 0;

  readonly redirects = (() => {
    const take = () => {
      const n = this.redirectsFound;
      this.redirectsFound = 0;
      return n;
    };
    return new Counter({
      name: 'joelinks_redirects_total',
      help: 'Resolver outcomes: found (link or keyword redirect) or not_found.',
      labelNames: ['status'] as const,
      registers: [this.registry],
      collect() {
        const n = take();
        if (n > 0) this.inc({ status: 'found' }, n);
      },
    });
  })();

  readonly redirectDuration = new PlainHistogram(
    'joelinks_redirect_duration_seconds',
    'Time spent per resolver invocation.',
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5],
    this.registry,
  );

  readonly http = new HttpMetrics(this.registry);

  /** A go-link request answered with a redirect (or the fill-in form's page that moves on). */
  redirectFound(): void {
    this.redirectsFound++;
  }

  /** A go-link request that found nothing it may open: the 404 pages. */
  redirectMissed(): void {
    this.redirects.inc({ status: 'not_found' });
  }

  /**
   * One redirect answered by the go-link front with `status` (302, or 204 for HTMX), begun at
   * `start` (a `performance.now()` reading): one clock reading serves both histograms.
   */
  redirected(start: number, status = 302): void {
    this.redirectFound();
    const seconds = (performance.now() - start) / 1000;
    this.redirectDuration.observe(seconds);
    this.http.record(REDIRECT_KIND, status, seconds);
  }

  readonly clicksRecorded = new Counter({
    name: 'joelinks_clicks_recorded_total',
    help: 'Click rows written.',
    registers: [this.registry],
  });

  /** Clicks per stored batch: under load a batch gathers for up to seconds (docs/analytics.md#click-capture). */
  readonly clickBatchSize = new PlainHistogram(
    'joelinks_click_batch_size',
    'Clicks per stored batch.',
    [1, 10, 100, 1_000, 10_000, 50_000, 100_000, 200_000],
    this.registry,
  );

  /** How long each batch's INSERT and commit took: on SQLite, on the click thread, not the one answering redirects. */
  readonly clickBatchDuration = new PlainHistogram(
    'joelinks_click_batch_duration_seconds',
    'Time to insert and commit one batch of clicks.',
    [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    this.registry,
  );

  /** A batch of `rows` clicks stored in `seconds`. */
  batchStored(rows: number, seconds: number): void {
    this.clicksRecorded.inc(rows);
    this.clickBatchSize.observe(rows);
    this.clickBatchDuration.observe(seconds);
  }

  readonly clickErrors = new Counter({
    name: 'joelinks_clicks_record_errors_total',
    help: 'Click batch insert failures (each batch is retried).',
    registers: [this.registry],
  });

  readonly clicksDropped = new Counter({
    name: 'joelinks_clicks_dropped_total',
    help: 'Click events dropped because the in-process queue was full.',
    registers: [this.registry],
  });

  readonly clicksPruned = new Counter({
    name: 'joelinks_clicks_pruned_total',
    help: 'Click rows deleted by the retention pruner (JOE_CLICK_RETENTION).',
    registers: [this.registry],
  });

  readonly links = new Gauge({
    name: 'joelinks_links_total',
    help: 'Links in the database (refreshed every 60 s).',
    registers: [this.registry],
  });

  readonly users = new Gauge({
    name: 'joelinks_users_total',
    help: 'Users in the database (refreshed every 60 s).',
    registers: [this.registry],
  });

  /** Per replica: sum over replicas says how often a job ran anywhere. */
  readonly jobRuns = new Counter({
    name: 'joelinks_job_runs_total',
    help: 'Periodic job runs on this replica, by job and outcome (ok or error).',
    labelNames: ['job', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly jobLastSuccess = new Gauge({
    name: 'joelinks_job_last_success_timestamp_seconds',
    help: 'Unix time this replica last finished the job without error (take the max over replicas).',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });

  readonly jobLeaseHeld = new Gauge({
    name: 'joelinks_job_lease_held',
    help: '1 while this replica holds the job lease, else 0 (summed over replicas: 1 when healthy).',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });

  /** One per MCP tool call; `tool` is always a listed tool name, so the label set stays small. */
  readonly mcpToolCalls = new Counter({
    name: 'joelinks_mcp_tool_calls_total',
    help: 'MCP tool calls by tool and outcome (success, or error for tool errors and failed handlers).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Outbox attempts (docs/notifications.md#delivery); `channel` is mail or webhook. */
  readonly outboxDeliveries = new Counter({
    name: 'joelinks_outbox_deliveries_total',
    help: 'Outbox deliveries by channel (mail, webhook) and outcome: delivered, retry (failed, tried again later), failed (gave up), skipped.',
    labelNames: ['channel', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly outboxDepth = new Gauge({
    name: 'joelinks_outbox_depth',
    help: 'Deliveries waiting in the outbox, by channel (refreshed after each dispatcher run and every 60 s).',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });

  constructor(opts: { processMetrics?: boolean } = {}) {
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    // Pre-create both label values so dashboards see zeros, not gaps.
    this.redirects.inc({ status: 'found' }, 0);
    this.redirects.inc({ status: 'not_found' }, 0);
    for (const channel of ['mail', 'webhook']) this.outboxDepth.labels(channel).set(0);
  }
}
