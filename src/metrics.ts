import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The Prometheus metrics of docs/analytics.md#metrics, on a registry per app instance
 * (tests run several). No metric ever carries a slug label.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly redirects = new Counter({
    name: 'joelinks_redirects_total',
    help: 'Resolver outcomes: found (link or keyword redirect) or not_found.',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly redirectDuration = new Histogram({
    name: 'joelinks_redirect_duration_seconds',
    help: 'Time spent per resolver invocation.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5],
    registers: [this.registry],
  });

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
    this.redirects.labels('found');
    this.redirects.labels('not_found');
    for (const channel of ['mail', 'webhook']) this.outboxDepth.labels(channel).set(0);
  }
}
