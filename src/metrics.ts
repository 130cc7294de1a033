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

  /** One redirect answered, begun at `start` (a `performance.now()` reading). */
  redirected(start: number): void {
    this.redirectsFound++;
    this.redirectDuration.observeSince(start);
  }

  readonly clicksRecorded = new Counter({
    name: 'joelinks_clicks_recorded_total',
    help: 'Click rows written.',
    registers: [this.registry],
  });

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
