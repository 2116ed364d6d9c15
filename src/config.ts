import { z } from 'zod';
import { UPSTREAMS } from './assistants/types.ts';

/**
 * The only place that reads process.env. Every problem is collected and
 * reported in one error so an operator fixes the environment in one pass.
 */

const optionalUrl = z.url({ message: 'must be an absolute URL' }).optional();
const optionalSecret = z.string().min(1).optional();

const siteFetchMap = z
  .string()
  .default('')
  .transform((raw, ctx) => {
    const map = new Map<string, string>();
    for (const pair of raw
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const [domain, origin] = pair.split('=');
      if (!domain || !origin || !URL.canParse(origin)) {
        ctx.addIssue({ code: 'custom', message: `entry "${pair}" is not domain=http://host:port` });
        continue;
      }
      map.set(domain.toLowerCase(), origin.replace(/\/$/, ''));
    }
    return map;
  });

/**
 * `5000,300000,...`: milliseconds before each retry of a webhook delivery
 * (docs/webhooks.md "Retries"); one entry per retry, so the list's length is
 * how many retries a delivery gets after its first attempt.
 */
const retryDelays = z
  .string()
  .default('5000,300000,1800000,7200000,18000000,36000000,36000000')
  .transform((raw, ctx) => {
    const delays = raw
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)
      .map(Number);
    if (
      delays.length === 0 ||
      delays.length > 20 ||
      delays.some((d) => !Number.isInteger(d) || d < 0 || d > 7 * 24 * 3600 * 1000)
    ) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be 1 to 20 whole numbers of milliseconds (at most a week each), comma-separated',
      });
    }
    return delays;
  });

type Upstream = (typeof UPSTREAMS)[number];

const rpm = z.coerce.number().int().min(1).max(1_000_000).optional();
const inFlight = z.coerce.number().int().min(1).max(10_000).optional();

/** `openai=1200,anthropic=50`: requests per minute the simulator accepts per upstream before it answers 429. */
const simulatorRpm = z
  .string()
  .default('')
  .transform((raw, ctx) => {
    const limits: Partial<Record<Upstream, number>> = {};
    for (const pair of raw
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const [name, value] = pair.split('=');
      const rpm = Number(value);
      if (!name || !(UPSTREAMS as readonly string[]).includes(name) || !Number.isInteger(rpm) || rpm < 1) {
        ctx.addIssue({
          code: 'custom',
          message: `entry "${pair}" is not upstream=requests-per-minute (upstreams: ${UPSTREAMS.join(', ')})`,
        });
        continue;
      }
      limits[name as Upstream] = rpm;
    }
    return limits;
  });

export const configSchema = z.object({
  DATABASE_URL: z
    .string()
    .startsWith('postgres', 'must be a postgres:// URL')
    .default('postgres://postgres@127.0.0.1:5432/sightline'),
  REDIS_URL: z.string().startsWith('redis', 'must be a redis:// URL').default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]+$/, 'letters, digits, ":", "_" and "-" only')
    .default('sightline'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  PUBLIC_BASE_URL: optionalUrl,
  API_VARIANT: z.enum(['A', 'B', 'AB']).default('AB'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // A secret a scraper sends as a bearer token; long enough that it cannot be guessed.
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').max(1000).optional(),
  ASSISTANTS: z.enum(['auto', 'live', 'simulator']).optional(),
  NODE_ENV: z.string().optional(),
  SIMULATOR_URL: optionalUrl,
  SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  OPENAI_API_KEY: optionalSecret,
  OPENAI_BASE_URL: optionalUrl,
  ANTHROPIC_API_KEY: optionalSecret,
  ANTHROPIC_BASE_URL: optionalUrl,
  PERPLEXITY_API_KEY: optionalSecret,
  PERPLEXITY_BASE_URL: optionalUrl,
  GEMINI_API_KEY: optionalSecret,
  GEMINI_BASE_URL: optionalUrl,
  SERP_API_KEY: optionalSecret,
  SERP_BASE_URL: optionalUrl,
  APP_GATEWAY_API_KEY: optionalSecret,
  APP_GATEWAY_BASE_URL: optionalUrl,
  ASSISTANT_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(120_000),
  ASSISTANT_CONCURRENCY: z.coerce.number().int().min(1).max(500).optional(),
  ASSISTANT_RETRY_BASE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  // One upstream account's limits, shared by every worker process: requests per minute and calls in flight.
  OPENAI_RPM: rpm,
  OPENAI_MAX_IN_FLIGHT: inFlight,
  ANTHROPIC_RPM: rpm,
  ANTHROPIC_MAX_IN_FLIGHT: inFlight,
  PERPLEXITY_RPM: rpm,
  PERPLEXITY_MAX_IN_FLIGHT: inFlight,
  GEMINI_RPM: rpm,
  GEMINI_MAX_IN_FLIGHT: inFlight,
  SERP_RPM: rpm,
  SERP_MAX_IN_FLIGHT: inFlight,
  APP_GATEWAY_RPM: rpm,
  APP_GATEWAY_MAX_IN_FLIGHT: inFlight,
  WORKER_SCAN_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(10),
  SIMULATOR_RPM: simulatorRpm,
  SITE_FETCH_MAP: siteFetchMap,
  SITE_FETCH_OUTBOUND: z.enum(['on', 'off']).default('on'),
  SITE_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  SITE_FETCH_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  SITE_FETCH_CONTACT_URL: z.url({ message: 'must be an absolute URL' }).default('https://sightline.dev/bot'),
  SITE_PARSE_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(20_000),
  SITEMAP_TITLES_PER_RUN: z.coerce.number().int().min(0).max(100_000).default(500),
  SITE_JOB_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
  DEMO_SITE_PORT: z.coerce.number().int().min(0).max(65535).default(4020),
  JOB_LOCK_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  SCAN_POLL_MS: z.coerce.number().int().min(50).max(3_600_000).default(60_000),
  SCAN_RECONCILE_MS: z.coerce.number().int().min(500).max(3_600_000).default(60_000),
  SCHEDULE_SPREAD_MINUTES: z.coerce.number().int().min(0).max(720).default(360),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_RETRY_DELAYS_MS: retryDelays,
  WEBHOOK_RECONCILE_MS: z.coerce.number().int().min(500).max(3_600_000).default(60_000),
  WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1000).default(10),
  WEBHOOKS_PER_WORKSPACE: z.coerce.number().int().min(1).max(10_000).default(100),
  WORKER_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50),
  // The operator's view (docs/operations.md): tracing with the standard OTEL_* variables, the queue dashboard's token.
  OTEL_SDK_DISABLED: z.string().optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  OTEL_TRACES_EXPORTER: z.string().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OPERATOR_TOKEN: z
    .string()
    .min(24, 'must be at least 24 characters (e.g. openssl rand -hex 24)')
    .refine((t) => !t.startsWith('slk_'), 'must not be a workspace key')
    .optional(),
  // From 1 ms so a test can force the limit. A reanalysis batch of 1,000 ordinary answers takes about 0.1 s; 10 s leaves room for a loaded machine.
  ANALYSIS_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(10_000),
});

type Env = z.infer<typeof configSchema>;

/** What connects one upstream to its real service: its API key and base URL. */
export type UpstreamCredential = { apiKey: string | undefined; baseUrl: string | undefined };

/** One upstream account's limits as configured; unset means the default (src/assistants/upstream-gate.ts). */
export type UpstreamLimitConfig = { rpm: number | undefined; maxInFlight: number | undefined };

export interface Config {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  host: string;
  port: number;
  publicBaseUrl: string;
  apiVariant: 'A' | 'B' | 'AB';
  logLevel: Env['LOG_LEVEL'];
  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise); unset, it is open. */
  metricsToken: string | undefined;
  assistants: {
    /** CONTRACT.md "Configuration": `live` asks only assistants with a credential, `simulator` none, `auto` live where a credential is set. */
    mode: 'auto' | 'live' | 'simulator';
    simulatorUrl: string;
    simulatorPort: number;
    timeoutMs: number;
    /** In-flight calls per provider per process; unset keeps each provider's default. */
    concurrency: number | undefined;
    retryBaseMs: number;
    openai: UpstreamCredential;
    anthropic: UpstreamCredential;
    perplexity: UpstreamCredential;
    gemini: UpstreamCredential;
    serp: UpstreamCredential;
    appGateway: UpstreamCredential;
  };
  siteFetchMap: ReadonlyMap<string, string>;
  /** Fetches of customer sites (robots.txt, llms.txt, sitemaps, pages): src/web/site-fetch.ts. */
  siteFetch: {
    /** false: only SITE_FETCH_MAP domains are fetched (tests, offline demos); every other fetch is refused. */
    outbound: boolean;
    timeoutMs: number;
    connectTimeoutMs: number;
    /** Named in the User-Agent so a site owner can find out who fetched. */
    contactUrl: string;
    /** Page titles read per sitemap import at most (0: none). */
    titlesPerRun: number;
    /** How long POST import-sitemap and crawlers/check wait for their job before answering its progress. */
    jobWaitMs: number;
    /** The most one file from a site (robots.txt, llms.txt, a sitemap, a page's head) may take to parse on its thread. */
    parseTimeoutMs: number;
  };
  /** Each upstream account's limits, across every worker process (enforced through Redis: src/assistants/upstream-gate.ts). */
  upstreamLimits: Record<Upstream, UpstreamLimitConfig>;
  /** Scan jobs one worker process runs at once (they share each provider's capacity fairly). */
  workerScanConcurrency: number;
  /** Requests per minute `sightline simulator` accepts per upstream before answering 429 (SIMULATOR_RPM). */
  simulatorRpm: Partial<Record<Upstream, number>>;
  /** Where `npm start` serves the demo brand's web site (src/fixture-site), fetched through SITE_FETCH_MAP. */
  demoSitePort: number;
  /** How long a dead worker's job and site locks outlive it before another worker takes over. */
  jobLockMs: number;
  scans: {
    /** How often a scan waiting on a batch or queue model polls it. */
    pollMs: number;
    /** How often the reconciler looks for scans with no live job. */
    reconcileMs: number;
    /** Scheduled scans of one night start spread over this many minutes after midnight UTC. */
    scheduleSpreadMinutes: number;
  };
  /** Webhook deliveries (domain/webhooks, docs/webhooks.md). */
  webhooks: {
    /** One attempt's whole time: connect, send, the answer's status and first 1 KB. */
    timeoutMs: number;
    /** Before each retry (±20% jitter); a delivery whose retries are used up is `failed`. */
    retryDelaysMs: readonly number[];
    /** How often the reconciler re-queues overdue deliveries whose job went missing. */
    reconcileMs: number;
    /** Attempts in flight to one webhook at once, across every worker: a slow receiver holds this many slots at most. */
    maxInFlight: number;
    /** Webhooks one workspace may have. */
    perOrg: number;
    /** Delivery jobs one worker process runs at once (each mostly waits on its receiver). */
    workerConcurrency: number;
  };
  /**
   * OpenTelemetry traces (src/telemetry/tracing.ts): on when an OTLP endpoint
   * or a traces exporter is set and OTEL_SDK_DISABLED is not true. The SDK
   * reads its own OTEL_* variables; off, it is never loaded.
   */
  tracing: { enabled: boolean; serviceName: string | undefined };
  /** NODE_ENV=production: `sightline doctor` holds such a deployment to stricter checks. */
  production: boolean;
  /** Opens the queue dashboard at /admin/queues (src/http/admin-queues.ts); unset, the dashboard answers 404. */
  operatorToken: string | undefined;
  analysis: {
    /**
     * How long one analysis task (a batch of answers, or one answer) may run
     * on its thread before the thread is stopped (src/analysis/pool.ts).
     */
    timeoutMs: number;
  };
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value) && !(value instanceof Map)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Traces are exported when told where (an OTLP endpoint) or how (an exporter other than none), unless the SDK is disabled. */
function tracingEnabled(e: Env): boolean {
  if (e.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (e.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (exporters.includes('none') && exporters.length === 1) return false;
  return Boolean(e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || exporters.length > 0);
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "unset" so `FOO= npm start` behaves like leaving FOO out.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`);
  // The map sends fetches of customer sites to local origins, past the SSRF guard's address checks: tests and demos only.
  if (cleaned.NODE_ENV === 'production' && cleaned.SITE_FETCH_MAP?.split(',').some((pair) => pair.trim()))
    problems.push(
      'SITE_FETCH_MAP: not allowed when NODE_ENV=production (it sends fetches of the listed sites to local addresses, for tests and demos only); unset it',
    );
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  const simulatorUrl = e.SIMULATOR_URL ?? `http://127.0.0.1:${e.SIMULATOR_PORT}`;
  const cred = (apiKey: string | undefined, baseUrl: string | undefined): UpstreamCredential => ({ apiKey, baseUrl });
  return deepFreeze({
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    host: e.HOST,
    port: e.PORT,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/$/, ''),
    apiVariant: e.API_VARIANT,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    assistants: {
      // A production deployment never answers from the simulator unless told to.
      mode: e.ASSISTANTS ?? (e.NODE_ENV === 'production' ? 'live' : 'auto'),
      simulatorUrl: simulatorUrl.replace(/\/$/, ''),
      simulatorPort: e.SIMULATOR_PORT,
      timeoutMs: e.ASSISTANT_TIMEOUT_MS,
      concurrency: e.ASSISTANT_CONCURRENCY,
      retryBaseMs: e.ASSISTANT_RETRY_BASE_MS,
      openai: cred(e.OPENAI_API_KEY, e.OPENAI_BASE_URL),
      anthropic: cred(e.ANTHROPIC_API_KEY, e.ANTHROPIC_BASE_URL),
      perplexity: cred(e.PERPLEXITY_API_KEY, e.PERPLEXITY_BASE_URL),
      gemini: cred(e.GEMINI_API_KEY, e.GEMINI_BASE_URL),
      serp: cred(e.SERP_API_KEY, e.SERP_BASE_URL),
      appGateway: cred(e.APP_GATEWAY_API_KEY, e.APP_GATEWAY_BASE_URL),
    },
    siteFetchMap: e.SITE_FETCH_MAP,
    siteFetch: {
      outbound: e.SITE_FETCH_OUTBOUND === 'on',
      timeoutMs: e.SITE_FETCH_TIMEOUT_MS,
      connectTimeoutMs: e.SITE_FETCH_CONNECT_TIMEOUT_MS,
      contactUrl: e.SITE_FETCH_CONTACT_URL,
      titlesPerRun: e.SITEMAP_TITLES_PER_RUN,
      jobWaitMs: e.SITE_JOB_WAIT_MS,
      parseTimeoutMs: e.SITE_PARSE_TIMEOUT_MS,
    },
    upstreamLimits: {
      openai: { rpm: e.OPENAI_RPM, maxInFlight: e.OPENAI_MAX_IN_FLIGHT },
      anthropic: { rpm: e.ANTHROPIC_RPM, maxInFlight: e.ANTHROPIC_MAX_IN_FLIGHT },
      perplexity: { rpm: e.PERPLEXITY_RPM, maxInFlight: e.PERPLEXITY_MAX_IN_FLIGHT },
      gemini: { rpm: e.GEMINI_RPM, maxInFlight: e.GEMINI_MAX_IN_FLIGHT },
      serp: { rpm: e.SERP_RPM, maxInFlight: e.SERP_MAX_IN_FLIGHT },
      appGateway: { rpm: e.APP_GATEWAY_RPM, maxInFlight: e.APP_GATEWAY_MAX_IN_FLIGHT },
    },
    workerScanConcurrency: e.WORKER_SCAN_CONCURRENCY,
    simulatorRpm: e.SIMULATOR_RPM,
    demoSitePort: e.DEMO_SITE_PORT,
    jobLockMs: e.JOB_LOCK_MS,
    scans: {
      pollMs: e.SCAN_POLL_MS,
      reconcileMs: e.SCAN_RECONCILE_MS,
      scheduleSpreadMinutes: e.SCHEDULE_SPREAD_MINUTES,
    },
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryDelaysMs: e.WEBHOOK_RETRY_DELAYS_MS,
      reconcileMs: e.WEBHOOK_RECONCILE_MS,
      maxInFlight: e.WEBHOOK_MAX_IN_FLIGHT,
      perOrg: e.WEBHOOKS_PER_WORKSPACE,
      workerConcurrency: e.WORKER_WEBHOOK_CONCURRENCY,
    },
    tracing: { enabled: tracingEnabled(e), serviceName: e.OTEL_SERVICE_NAME },
    production: e.NODE_ENV === 'production',
    operatorToken: e.OPERATOR_TOKEN,
    analysis: { timeoutMs: e.ANALYSIS_TIMEOUT_MS },
  });
}
