import { sql } from 'kysely';
import { targetKind } from '../../assistants/targets.ts';
import { UPSTREAMS } from '../../assistants/types.ts';
import type { AppContext } from '../../context.ts';
import { createMigrator } from '../../db/migrate.ts';
import { liveWorkers } from './operations.ts';

/**
 * `sightline doctor`: whether this deployment can run, one check at a time,
 * each with a verdict (`ok`, `warn`, `fail`) and what it found. Every
 * check has its own deadline, so a dependency that does not answer is a
 * failed check, never a hung command.
 *
 * Glossary: skew = Redis' clock minus this machine's, measured at the
 * middle of the round trip.
 */

export type Verdict = 'ok' | 'warn' | 'fail';

export interface Check {
  check: string;
  verdict: Verdict;
  detail: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: Check[];
}

const CHECK_TIMEOUT_MS = 5_000;
/** BullMQ needs 6.2; the provider gate's `PEXPIRE ... GT` needs 7.0. */
const REDIS_MIN = [7, 0] as const;
/** Partitioned answers (ATTACH PARTITION, per-partition unique indexes) need 13; developed on 15. */
const POSTGRES_MIN_NUM = 130_000;
/** Leases of calls in flight expire by wall time across processes (15 s); a second of skew shifts them by as much. */
const SKEW_WARN_MS = 500;
const SKEW_FAIL_MS = 2_000;

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/** The median of three round trips, in milliseconds with one decimal. */
/**
 * The best of five round trips: the checks run side by side in a process that is still loading, so a single
 * (or median) trip also times this process's own pauses, not the server's; the best one is the link's.
 */
async function latency(probe: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < 5; i++) best = Math.min(best, (await timed(probe)).ms);
  return Math.round(best * 10) / 10;
}

function withDeadline(name: string, run: () => Promise<Check>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Check>((resolve) => {
    timer = setTimeout(
      () => resolve({ check: name, verdict: 'fail', detail: `no answer within ${CHECK_TIMEOUT_MS / 1000} s` }),
      CHECK_TIMEOUT_MS,
    );
  });
  return Promise.race([
    run().catch((err: Error) => ({ check: name, verdict: 'fail' as const, detail: `unreachable: ${err.message}` })),
    late,
  ]).finally(() => clearTimeout(timer));
}

export function checkConfig(ctx: AppContext): Check {
  const c = ctx.config;
  const production = c.production;
  const warnings: string[] = [];
  if (production && c.assistants.mode !== 'live')
    warnings.push(`ASSISTANTS=${c.assistants.mode} in production: answers may come from the simulator`);
  if (production && c.publicBaseUrl.startsWith(`http://${c.host}:`))
    warnings.push('PUBLIC_BASE_URL is not set: links point at the bind address');
  const facts = [
    `API variant ${c.apiVariant}`,
    `assistants ${c.assistants.mode}`,
    `tracing ${c.tracing.enabled ? 'on' : 'off'}`,
    `queue dashboard ${c.operatorToken ? 'on' : 'off (OPERATOR_TOKEN unset)'}`,
    `Redis prefix ${c.redisPrefix}`,
  ];
  return {
    check: 'config',
    verdict: warnings.length ? 'warn' : 'ok',
    detail: [...warnings, facts.join('; ')].join('; '),
  };
}

export async function checkPostgres(ctx: AppContext): Promise<Check> {
  const version = await sql<{
    num: string;
    text: string;
  }>`SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS text`.execute(ctx.db);
  const row = version.rows[0];
  const ms = await latency(() => sql`SELECT 1`.execute(ctx.db));
  const num = Number(row?.num ?? 0);
  const detail = `PostgreSQL ${row?.text ?? '?'}, round trip ${ms} ms`;
  if (num < POSTGRES_MIN_NUM)
    return { check: 'postgres', verdict: 'fail', detail: `${detail}: version 13 or later is needed` };
  return {
    check: 'postgres',
    verdict: ms > 50 ? 'warn' : 'ok',
    detail: ms > 50 ? `${detail}: slow for statements made one by one` : detail,
  };
}

/** `maxmemory-policy` from CONFIG GET, or from INFO where CONFIG is refused (managed Redis services). */
async function evictionPolicy(ctx: AppContext): Promise<string> {
  try {
    const reply = (await ctx.redis.config('GET', 'maxmemory-policy')) as string[];
    if (reply[1]) return reply[1];
  } catch {
    // CONFIG disabled: INFO memory says it too.
  }
  return /maxmemory_policy:(\S+)/.exec(await ctx.redis.info('memory'))?.[1] ?? 'unknown';
}

export async function checkRedis(ctx: AppContext): Promise<Check> {
  const version = /redis_version:(\S+)/.exec(await ctx.redis.info('server'))?.[1] ?? '0';
  const ms = await latency(() => ctx.redis.ping());
  const policy = await evictionPolicy(ctx);
  const detail = `Redis ${version}, round trip ${ms} ms, maxmemory-policy ${policy}`;
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const problems: string[] = [];
  if (major < REDIS_MIN[0] || (major === REDIS_MIN[0] && minor < REDIS_MIN[1]))
    problems.push(`version ${REDIS_MIN.join('.')} or later is needed`);
  if (policy !== 'noeviction')
    problems.push(
      `maxmemory-policy must be noeviction: BullMQ loses jobs and locks when Redis evicts keys (CONFIG SET maxmemory-policy noeviction, and in redis.conf)`,
    );
  if (problems.length) return { check: 'redis', verdict: 'fail', detail: `${detail}: ${problems.join('; ')}` };
  return {
    check: 'redis',
    verdict: ms > 20 ? 'warn' : 'ok',
    detail: ms > 20 ? `${detail}: slow for the provider gate's round trips` : detail,
  };
}

export async function checkMigrations(ctx: AppContext): Promise<Check> {
  const known = await createMigrator(ctx.db).getMigrations();
  const pending = known.filter((m) => !m.executedAt).map((m) => m.name);
  const names = new Set(known.map((m) => m.name));
  const applied = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(ctx.db).then(
    (r) => r.rows.map((row) => row.name),
    () => [] as string[],
  );
  const unknown = applied.filter((n) => !names.has(n));
  if (pending.length)
    return {
      check: 'migrations',
      verdict: 'fail',
      detail: `${pending.length} pending: ${pending.join(', ')} (run sightline migrate)`,
    };
  if (unknown.length)
    return {
      check: 'migrations',
      verdict: 'warn',
      detail: `the database has migrations this code does not know (a newer release ran): ${unknown.join(', ')}`,
    };
  return { check: 'migrations', verdict: 'ok', detail: `${known.length} applied, none pending` };
}

export async function checkWorkers(ctx: AppContext): Promise<Check> {
  const live = await liveWorkers(ctx);
  const missing = Object.entries(live)
    .filter(([, n]) => n === 0)
    .map(([q]) => q);
  const counts = Object.entries(live)
    .map(([q, n]) => `${q} ${n}`)
    .join(', ');
  if (missing.length)
    return {
      check: 'workers',
      verdict: 'fail',
      detail: `no live worker for ${missing.join(', ')}: their jobs wait (sightline worker [--queues ...]); live per queue: ${counts}`,
    };
  return { check: 'workers', verdict: 'ok', detail: `live per queue: ${counts}` };
}

/** Verdict on a skew between this machine's clock and Redis'. */
export function skewVerdict(skewMs: number): Verdict {
  const size = Math.abs(skewMs);
  return size > SKEW_FAIL_MS ? 'fail' : size > SKEW_WARN_MS ? 'warn' : 'ok';
}

export async function checkClock(ctx: AppContext, now: () => number = Date.now): Promise<Check> {
  await ctx.redis.ping();
  // Of three readings, the one with the shortest round trip places Redis' reading best (as NTP does).
  let best: { skew: number; rtt: number } | null = null;
  for (let i = 0; i < 3; i++) {
    const before = now();
    const [seconds, micros] = await ctx.redis.time();
    const after = now();
    const redisMs = Number(seconds) * 1000 + Number(micros) / 1000;
    if (!best || after - before < best.rtt)
      best = { skew: Math.round(redisMs - (before + after) / 2), rtt: after - before };
  }
  const skew = best?.skew ?? 0;
  const verdict = skewVerdict(skew);
  const detail = `this machine's clock is ${Math.abs(skew)} ms ${skew > 0 ? 'behind' : 'ahead of'} Redis'`;
  return {
    check: 'clock',
    verdict,
    detail:
      verdict === 'ok'
        ? detail
        : `${detail}: workers share leases and schedules by wall time; synchronise clocks (NTP)`,
  };
}

export async function checkAssistants(ctx: AppContext, fetchHealth: (url: string) => Promise<boolean>): Promise<Check> {
  const a = ctx.config.assistants;
  const live = UPSTREAMS.filter((u) => targetKind(a, u) === 'api');
  const simulated = UPSTREAMS.filter((u) => !live.includes(u));
  const shown = `live: ${live.join(', ') || 'none'}; ${a.mode === 'live' ? 'not connected (no credential)' : 'simulated'}: ${simulated.join(', ') || 'none'}`;
  if (a.mode === 'live')
    return {
      check: 'assistants',
      verdict: live.length ? 'ok' : 'fail',
      detail: live.length ? shown : `${shown}: ASSISTANTS=live with no credential set, no scan can ask anything`,
    };
  if (simulated.length === 0) return { check: 'assistants', verdict: 'ok', detail: shown };
  const up = await fetchHealth(`${a.simulatorUrl}/__sim/health`);
  if (!up)
    return {
      check: 'assistants',
      verdict: 'fail',
      detail: `${shown}: the simulator at ${a.simulatorUrl} does not answer (sightline simulator)`,
    };
  const production = ctx.config.production;
  return {
    check: 'assistants',
    verdict: production ? 'warn' : 'ok',
    detail: production ? `${shown}: simulated answers in production` : shown,
  };
}

async function simulatorHealthy(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

/** Every check, run at once; `ok` unless one failed. */
export async function runDoctor(
  ctx: AppContext,
  options: { now?: () => number; fetchHealth?: (url: string) => Promise<boolean> } = {},
): Promise<DoctorReport> {
  // The job table (its queues, for the workers check) imports every handler: loaded inside the timed checks, it held
  // the event loop past the other checks' deadlines on a loaded machine.
  await ctx.jobs.table();
  const checks = await Promise.all([
    withDeadline('config', async () => checkConfig(ctx)),
    withDeadline('postgres', () => checkPostgres(ctx)),
    withDeadline('redis', () => checkRedis(ctx)),
    withDeadline('migrations', () => checkMigrations(ctx)),
    withDeadline('workers', () => checkWorkers(ctx)),
    withDeadline('clock', () => checkClock(ctx, options.now)),
    withDeadline('assistants', () => checkAssistants(ctx, options.fetchHealth ?? simulatorHealthy)),
  ]);
  return { ok: checks.every((c) => c.verdict !== 'fail'), checks };
}
