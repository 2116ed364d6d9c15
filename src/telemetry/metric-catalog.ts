/**
 * Every metric Sightline adds to `/metrics` for operators, in one place:
 * the API's collectors and the workers' recorder name their series from
 * here, and ops/ (alert rules, the Grafana dashboard) is checked against
 * what `/metrics` actually exports (test/integration/ops-metrics.test.ts).
 *
 * Labels never use the names Prometheus gives its targets (`job`,
 * `instance`): a job's name is `job_name`. Every API process reports the
 * same deployment-wide values, so queries take `max` across instances.
 *
 * Two sources:
 * - `scrape`: read when `/metrics` is scraped, from Redis (BullMQ's queues,
 *   the provider gate) and Postgres (scans, money), at most every few
 *   seconds whatever the number of scrapes;
 * - `workers`: counted in worker processes as jobs and provider calls run,
 *   added into one Redis hash every second and exposed by the API, so one
 *   scrape of the API sees every worker's.
 */

export type MetricType = 'gauge' | 'counter' | 'histogram';

export interface MetricSpec {
  name: string;
  type: MetricType;
  help: string;
  labels: readonly string[];
  source: 'scrape' | 'workers';
  /** Histogram buckets (seconds). */
  buckets?: readonly number[];
}

const define = <const T extends Record<string, MetricSpec>>(specs: T): T => specs;

export const METRICS = define({
  queueJobs: {
    name: 'sightline_queue_jobs',
    type: 'gauge',
    help: 'Jobs per queue and state (waiting, active, delayed, failed, prioritized, waiting-children)',
    labels: ['queue', 'state'],
    source: 'scrape',
  },
  queueWorkers: {
    name: 'sightline_queue_workers',
    type: 'gauge',
    help: 'Worker processes connected to each queue (BullMQ worker connections in Redis)',
    labels: ['queue'],
    source: 'scrape',
  },
  scans: {
    name: 'sightline_scans',
    type: 'gauge',
    help: 'Scans not yet ended, by status (queued, running, cancelling)',
    labels: ['status'],
    source: 'scrape',
  },
  oldestRunningScan: {
    name: 'sightline_scan_oldest_running_seconds',
    type: 'gauge',
    help: 'Age of the oldest running scan since it started (0 when none runs)',
    labels: [],
    source: 'scrape',
  },
  moneyReserved: {
    name: 'sightline_money_reserved_micros',
    type: 'gauge',
    help: 'Money held for assistant calls in flight, every workspace (micro-dollars)',
    labels: [],
    source: 'scrape',
  },
  moneySettled: {
    name: 'sightline_money_settled_micros_total',
    type: 'counter',
    help: 'Money charged for stored answers since the deployment began, every site and month (micro-dollars); deleting a site lowers it',
    labels: [],
    source: 'scrape',
  },
  upstreamInFlight: {
    name: 'sightline_provider_calls_in_flight',
    type: 'gauge',
    help: 'Calls in flight to each provider account, every worker process (the gate leases)',
    labels: ['upstream'],
    source: 'scrape',
  },
  upstreamRate: {
    name: 'sightline_provider_rate_rpm',
    type: 'gauge',
    help: 'Requests per minute the gate sends to each provider account now (lowered by 429s); absent when unlimited',
    labels: ['upstream'],
    source: 'scrape',
  },
  collectOk: {
    name: 'sightline_operator_metrics_up',
    type: 'gauge',
    help: 'Whether the last read of each source of these metrics succeeded (1) or failed (0)',
    labels: ['source'],
    source: 'scrape',
  },
  jobDuration: {
    name: 'sightline_job_duration_seconds',
    type: 'histogram',
    help: 'Job runs by queue, job and outcome (completed, failed, retry_later: re-delayed to wait)',
    labels: ['queue', 'job_name', 'outcome'],
    source: 'workers',
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600],
  },
  jobsExhausted: {
    name: 'sightline_jobs_exhausted_total',
    type: 'counter',
    help: 'Jobs that failed their last attempt (a scan then ends failed)',
    labels: ['queue', 'job_name'],
    source: 'workers',
  },
  jobsStalled: {
    name: 'sightline_jobs_stalled_total',
    type: 'counter',
    help: 'Jobs found stalled (their worker stopped renewing its lock) and handed to another worker',
    labels: ['queue'],
    source: 'workers',
  },
  upstreamCalls: {
    name: 'sightline_provider_calls_total',
    type: 'counter',
    help: 'Assistant calls through the provider gate by upstream and outcome (ok, rate_limited: a 429, error)',
    labels: ['upstream', 'outcome'],
    source: 'workers',
  },
  upstreamGateWait: {
    name: 'sightline_provider_gate_wait_seconds',
    type: 'histogram',
    help: "Time a call waited at the provider gate for the account's rate and a slot in flight",
    labels: ['upstream'],
    source: 'workers',
    buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 15, 60],
  },
});

export type MetricKey = keyof typeof METRICS;
