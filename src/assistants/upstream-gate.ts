import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import pLimit, { type LimitFunction } from 'p-limit';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { AssistantError } from './assistant-error.ts';
import { sleep } from './retry.ts';
import { targetKind } from './targets.ts';
import { UPSTREAMS, type UpstreamKey } from './types.ts';

/**
 * Glossary
 * - account limit: what one provider account allows, whatever the number of
 *   worker processes: requests per minute (`rpm`) and calls in flight.
 * - gate: where every attempt of every process waits for its upstream's
 *   limits; the Redis gate shares them across processes, the local gate (no
 *   Redis: adapter tests, scripts) is one process's p-limit.
 * - effective rate: the rpm the gate sends at now; 429s lower it (x0.8, at
 *   most once per 2 s), successes raise it back (+5% of the limit a second).
 * - pause: after a 429 with Retry-After no process calls that upstream until
 *   it has passed.
 * - lease: one call in flight, a member of a Redis sorted set scored by its
 *   expiry; renewed while the call runs, so a dead process's calls free their
 *   slots within `leaseMs`. A finished call hands its lease to a caller of
 *   the same process waiting for one, or to the next call its process makes
 *   before the event loop turns, a bounded number of times.
 *
 * Limits and leases use wall time (Date.now()), not ctx.clock: they pace real
 * requests to a real service, and tests that fix the clock still send them.
 */

export interface UpstreamLimits {
  /** Requests per minute; null: no rate limit (calls answered by the simulator, unless set). */
  rpm: number | null;
  maxInFlight: number;
}

/**
 * Defaults for a real provider account, modest entry-tier figures (raise them
 * to your account's): OpenAI tier 1 allows 500 RPM on most models, Anthropic
 * tier 1 and Perplexity's lowest tier 50, Gemini's paid tier 1 hundreds to
 * thousands, SerpApi plans a few thousand searches an hour. Calls in flight
 * are what one process used to allow itself (the SERP account serves AI
 * Overview and AI Mode, 4 each), now for the whole deployment.
 */
export const DEFAULT_LIMITS: Record<UpstreamKey, { rpm: number; maxInFlight: number }> = {
  openai: { rpm: 500, maxInFlight: 8 },
  anthropic: { rpm: 50, maxInFlight: 4 },
  perplexity: { rpm: 50, maxInFlight: 6 },
  gemini: { rpm: 300, maxInFlight: 8 },
  serp: { rpm: 100, maxInFlight: 8 },
  appGateway: { rpm: 60, maxInFlight: 4 },
};

/**
 * Each upstream's limits from the config: `<UPSTREAM>_RPM` and
 * `<UPSTREAM>_MAX_IN_FLIGHT`, else ASSISTANT_CONCURRENCY for calls in flight,
 * else the defaults. An upstream answered by the simulator has no account, so
 * its rate is unlimited unless its `_RPM` is set (the scale bench sets it).
 */
export function resolveLimits(
  config: Pick<Config, 'assistants' | 'upstreamLimits'>,
): Record<UpstreamKey, UpstreamLimits> {
  return Object.fromEntries(
    UPSTREAMS.map((u) => {
      const set = config.upstreamLimits[u];
      const live = targetKind(config.assistants, u) === 'api';
      return [
        u,
        {
          rpm: set.rpm ?? (live ? DEFAULT_LIMITS[u].rpm : null),
          maxInFlight: set.maxInFlight ?? config.assistants.concurrency ?? DEFAULT_LIMITS[u].maxInFlight,
        },
      ];
    }),
  ) as Record<UpstreamKey, UpstreamLimits>;
}

export interface GateCapacity {
  /** The effective rate now (null: none), and the account's calls in flight. */
  rpm: number | null;
  maxInFlight: number;
}

export interface UpstreamGate {
  /** Runs one attempt within the upstream's limits; a 429 it throws pauses and slows every process. */
  run<T>(upstream: UpstreamKey, fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** What the upstream can take now, for sharing it between scans. */
  capacity(upstream: UpstreamKey): Promise<GateCapacity>;
}

/** One process alone: p-limit per upstream, no rate (the assistants layer without Redis). */
export function createLocalGate(maxInFlight: (upstream: UpstreamKey) => number): UpstreamGate {
  const limits = new Map<UpstreamKey, LimitFunction>();
  const limitOf = (u: UpstreamKey) => {
    let limit = limits.get(u);
    if (!limit) limits.set(u, (limit = pLimit(Math.max(1, maxInFlight(u)))));
    return limit;
  };
  return {
    run: (upstream, fn) => limitOf(upstream)(fn),
    capacity: async (upstream) => ({ rpm: null, maxInFlight: Math.max(1, maxInFlight(upstream)) }),
  };
}

/** Told of every call through the gate, for the operator's metrics (src/telemetry/gate-metrics.ts). */
export interface GateObserver {
  /** Seconds a call waited for the account's rate and a slot in flight. */
  waited(upstream: UpstreamKey, seconds: number): void;
  /** How the call ended: answered, refused with a 429, or failed otherwise. */
  called(upstream: UpstreamKey, outcome: 'ok' | 'rate_limited' | 'error'): void;
}

export interface RedisGateOptions {
  prefix: string;
  limits: Record<UpstreamKey, UpstreamLimits>;
  logger: Logger;
  observer?: GateObserver;
  /** How long a lease outlives a holder that stopped renewing it (a dead process). */
  leaseMs?: number;
  /** How often a process re-reads the shared rate and pause. */
  refreshMs?: number;
  /** The longest pause one Retry-After imposes. */
  maxPauseMs?: number;
}

export const DECREASE = 0.8;
export const INCREASE_SHARE = 0.05;
const DECREASE_EVERY_MS = 2000;
/**
 * A slot handed from call to call within a process saves two Redis round
 * trips a call (a tenth of a millisecond of worker CPU); bounded so that a
 * busy process gives its slots back to the others at least every half second.
 */
const MAX_HANDOFFS = 32;
const HANDOFF_MS = 500;
const INCREASE_EVERY_MS = 1000;
/** The effective rate never falls below this share of the limit (nor below 1 rpm). */
const FLOOR_SHARE = 0.05;

interface Shared {
  rate: number | null;
  pausedUntil: number;
  readAt: number;
  reading: Promise<void> | null;
  lastRaise: number;
}

const gateKey = (prefix: string, u: UpstreamKey, what: string) => `${prefix}:limits:${u}:${what}`;

/**
 * What the gate holds in Redis now, for the operator's metrics: each
 * upstream's calls in flight across every process (unexpired leases) and
 * the rate it sends at (null: unlimited). One round trip.
 */
export async function readGateState(
  redis: Redis,
  prefix: string,
  limits: Record<UpstreamKey, UpstreamLimits>,
): Promise<Record<UpstreamKey, { inFlight: number; rpm: number | null }>> {
  const now = Date.now();
  const multi = redis.multi();
  for (const u of UPSTREAMS)
    multi.zcount(gateKey(prefix, u, 'inflight'), `(${now}`, '+inf').get(gateKey(prefix, u, 'rate'));
  const replies = (await multi.exec()) ?? [];
  return Object.fromEntries(
    UPSTREAMS.map((u, i) => {
      const inFlight = Number(replies[2 * i]?.[1] ?? 0);
      const rate = replies[2 * i + 1]?.[1];
      const limit = limits[u].rpm;
      return [
        u,
        {
          inFlight,
          rpm: limit === null ? null : Math.min(limit, rate === null || rate === undefined ? limit : Number(rate)),
        },
      ];
    }),
  ) as Record<UpstreamKey, { inFlight: number; rpm: number | null }>;
}

/**
 * The account limits of every upstream, shared by all processes through
 * Redis: the rate with rate-limiter-flexible (1-second windows of rpm/60, so
 * a minute's requests are spread over it, not sent in its first seconds),
 * calls in flight as leases in a sorted set (added, counted and trimmed of
 * expired members in one MULTI: no holder is over the cap when it checks,
 * since a member that finds the set full removes itself again).
 */
export function createRedisGate(
  redis: Redis,
  options: RedisGateOptions,
): UpstreamGate & { effectiveRpm(upstream: UpstreamKey): Promise<number | null> } {
  const leaseMs = options.leaseMs ?? 15_000;
  const refreshMs = options.refreshMs ?? 250;
  const maxPauseMs = options.maxPauseMs ?? 60_000;
  const owner = randomBytes(6).toString('hex');
  let seq = 0;
  const key = (u: UpstreamKey, what: string) => gateKey(options.prefix, u, what);
  const shared = new Map<UpstreamKey, Shared>();
  const limiters = new Map<string, RateLimiterRedis>();
  const log = options.logger.child({ component: 'provider-gate' });

  const sharedOf = (u: UpstreamKey): Shared => {
    let s = shared.get(u);
    if (!s)
      shared.set(u, (s = { rate: options.limits[u].rpm, pausedUntil: 0, readAt: 0, reading: null, lastRaise: 0 }));
    return s;
  };

  /**
   * The shared rate and pause, re-read at most every `refreshMs`. While a
   * process keeps calling, a re-read runs behind the calls, which go on with
   * the values read last (at most two refresh periods old): calls that
   * waited for it held up their lane, and the slots they had finished with
   * went back to Redis to be taken again (a lease and a free each).
   */
  async function read(u: UpstreamKey): Promise<Shared> {
    const s = sharedOf(u);
    const age = Date.now() - s.readAt;
    if (age < refreshMs) return s;
    const reading = (s.reading ??= (async () => {
      const [rate, pause] = await redis
        .multi()
        .get(key(u, 'rate'))
        .pttl(key(u, 'pause'))
        .exec()
        .then((r) => (r ?? []).map(([, v]) => v));
      const limit = options.limits[u].rpm;
      s.rate = limit === null ? null : Math.min(limit, rate === null || rate === undefined ? limit : Number(rate));
      s.pausedUntil = Math.max(s.pausedUntil, typeof pause === 'number' && pause > 0 ? Date.now() + pause : 0);
      s.readAt = Date.now();
    })().finally(() => (s.reading = null)));
    if (age < 2 * refreshMs) {
      // Behind the calls: a failed re-read is tried again by the next call.
      reading.catch(() => undefined);
      return s;
    }
    await reading;
    return s;
  }

  function limiterFor(u: UpstreamKey, rpm: number): RateLimiterRedis {
    // Windows of a second at rpm/60 each; below 60 rpm, one window of a minute.
    const perSecond = Math.floor(rpm / 60);
    const [points, duration] = perSecond >= 1 ? [perSecond, 1] : [Math.max(1, Math.floor(rpm)), 60];
    const id = `${u}:${points}:${duration}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      // Every process counts in the same key per window length, whatever rate it read last. Calls that get a point together
      // as a window opens are spread over about its first half (execEvenly) rather than sent at once: a provider refills its
      // bucket continuously, and a whole window's worth at once, soon after the last window's, came back 429 (bench/scale).
      limiter = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: key(u, `rpm${duration}`),
        points,
        duration,
        execEvenly: true,
      });
      limiters.set(id, limiter);
    }
    return limiter;
  }

  async function waitPause(u: UpstreamKey, signal?: AbortSignal): Promise<Shared> {
    for (;;) {
      const s = await read(u);
      const wait = s.pausedUntil - Date.now();
      if (wait <= 0) return s;
      await sleep(Math.min(wait, refreshMs * 4), signal);
    }
  }

  async function takeRate(u: UpstreamKey, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const s = await waitPause(u, signal);
      if (s.rate === null) return;
      try {
        await limiterFor(u, s.rate).consume(u, 1);
        return;
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        // Spread the retries over the next window so they do not all land at its first millisecond.
        await sleep(err.msBeforeNext + Math.floor(Math.random() * 100), signal);
      }
    }
  }

  /** A caller of this process waiting for a slot of an upstream. */
  interface Waiter {
    take: (held: Held) => void;
    fail: (err: unknown) => void;
  }
  interface Held {
    id: string;
    renew: NodeJS.Timeout;
    /** Calls it has served, and when it was taken from Redis: it goes back there after MAX_HANDOFFS or HANDOFF_MS. */
    uses: number;
    since: number;
  }
  /**
   * Per upstream, this process's waiting callers (first come, first served),
   * whether one loop polls Redis for them, whether a caller is asking it
   * directly, slots just finished with nobody waiting (`spare`), kept
   * until the event loop next turns (see release), and how many slots this
   * process holds in Redis, spare ones included (`held`).
   */
  interface Queue {
    waiters: Waiter[];
    polling: boolean;
    asking: boolean;
    spare: Held[];
    freeing: NodeJS.Immediate | null;
    held: number;
  }
  const queues = new Map<UpstreamKey, Queue>();
  const queueOf = (u: UpstreamKey) => {
    let q = queues.get(u);
    if (!q) queues.set(u, (q = { waiters: [], polling: false, asking: false, spare: [], freeing: null, held: 0 }));
    return q;
  };

  /** One try at a slot in Redis: a member added, counted, and removed again when the set was full. */
  async function tryLease(u: UpstreamKey): Promise<Held | null> {
    const set = key(u, 'inflight');
    const id = `${owner}:${++seq}`;
    const now = Date.now();
    const result = await redis
      .multi()
      .zremrangebyscore(set, '-inf', now)
      .zadd(set, now + leaseMs, id)
      .zcard(set)
      .exec();
    if (Number(result?.[2]?.[1] ?? Infinity) > options.limits[u].maxInFlight) {
      await redis.zrem(set, id);
      return null;
    }
    const renew = setInterval(() => {
      redis.zadd(set, 'XX', Date.now() + leaseMs, id).catch(() => undefined);
    }, leaseMs / 3);
    renew.unref();
    queueOf(u).held++;
    return { id, renew, uses: 0, since: now };
  }

  async function free(u: UpstreamKey, held: Held): Promise<void> {
    clearInterval(held.renew);
    queueOf(u).held--;
    await redis
      .zrem(key(u, 'inflight'), held.id)
      .catch((err: Error) =>
        log.warn({ err: err.message, upstream: u }, 'could not free an in-flight lease; it expires'),
      );
  }

  /**
   * While callers wait, one loop per process and upstream asks Redis for
   * slots (backing off while the set is full) and gives each to the first
   * waiter: a hundred waiting calls cost one poll, not a hundred.
   */
  function poll(u: UpstreamKey): void {
    const q = queueOf(u);
    if (q.polling) return;
    q.polling = true;
    void (async () => {
      for (let tries = 0; q.waiters.length > 0;) {
        // When every slot is this process's own, asking Redis would find the set full: back off as if it had, without the
        // round trip (a finished call hands its slot over meanwhile). Not woken early when one goes back, so that other
        // processes' polls get it as often as before.
        let held: Held | null = null;
        try {
          if (q.held < options.limits[u].maxInFlight) held = await tryLease(u);
        } catch (err) {
          for (const w of q.waiters.splice(0)) w.fail(err);
          return;
        }
        if (held) {
          const first = q.waiters.shift();
          if (first) first.take(held);
          else await free(u, held);
          tries = 0;
          continue;
        }
        await sleep(Math.min(20 * 2 ** Math.min(tries++, 3), 200) + Math.floor(Math.random() * 20));
      }
    })().finally(() => {
      q.polling = false;
      if (q.waiters.length > 0) poll(u);
    });
  }

  /** A slot this process finished with in this turn of the event loop (see release), if there is one. */
  function takeSpare(u: UpstreamKey): Held | null {
    const spare = queueOf(u).spare.pop();
    if (spare) spare.uses++;
    return spare ?? null;
  }

  async function lease(u: UpstreamKey, signal?: AbortSignal): Promise<Held> {
    const q = queueOf(u);
    const spare = takeSpare(u);
    if (spare) return spare;
    // Straight to Redis only when nobody of this process is waiting or asking: a burst of calls queues behind one poll.
    if (q.waiters.length === 0 && !q.asking) {
      q.asking = true;
      try {
        const held = await tryLease(u);
        if (held) return held;
      } finally {
        q.asking = false;
      }
    }
    return new Promise<Held>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const leave = () => {
        signal?.removeEventListener('abort', onAbort);
        const at = q.waiters.indexOf(waiter);
        if (at >= 0) q.waiters.splice(at, 1);
      };
      const onAbort = () => {
        leave();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        take: (held) => {
          leave();
          resolve(held);
        },
        fail: (err) => {
          leave();
          reject(err);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      q.waiters.push(waiter);
      poll(u);
    });
  }

  /**
   * A finished call's slot goes straight to this process's first waiting
   * caller (no Redis round trip either way), a bounded number of times so
   * that other processes get their turns; else back to Redis. With nobody
   * waiting it is kept as spare until the event loop turns: a caller that
   * finished one call and asks for its next (a scan lane with no more callers
   * than slots) takes it back without a Redis round trip, and no slot is held
   * idle past the current turn of the loop.
   */
  function release(u: UpstreamKey, held: Held): Promise<void> | undefined {
    const q = queueOf(u);
    if (held.uses >= MAX_HANDOFFS || Date.now() - held.since >= HANDOFF_MS) return free(u, held);
    if (q.waiters.length > 0) {
      held.uses++;
      q.waiters[0]!.take(held);
      return;
    }
    q.spare.push(held);
    q.freeing ??= setImmediate(() => {
      q.freeing = null;
      for (const spare of q.spare.splice(0)) void free(u, spare);
    });
  }

  async function on429(u: UpstreamKey, retryAfterMs: number | null): Promise<void> {
    const s = sharedOf(u);
    if (retryAfterMs !== null && retryAfterMs > 0) {
      const ms = Math.min(retryAfterMs, maxPauseMs);
      s.pausedUntil = Math.max(s.pausedUntil, Date.now() + ms);
      // Never shortens a longer pause another process set.
      await redis.multi().set(key(u, 'pause'), '1', 'PX', ms, 'NX').pexpire(key(u, 'pause'), ms, 'GT').exec();
    }
    const limit = options.limits[u].rpm;
    if (limit === null) return;
    // One decrease per burst of 429s: the calls in flight when the limit was hit all come back 429.
    const first = await redis.set(key(u, 'decrease'), owner, 'PX', DECREASE_EVERY_MS, 'NX');
    if (first !== 'OK') return;
    await redis.set(key(u, 'rate'), String(limit), 'NX');
    const current = Number((await redis.get(key(u, 'rate'))) ?? limit);
    const next = Math.max(limit * FLOOR_SHARE, 1, current * DECREASE);
    await redis.incrbyfloat(key(u, 'rate'), next - current);
    s.rate = next;
    s.readAt = 0;
    log.warn({ upstream: u, rpm: Math.round(next), retryAfterMs }, 'provider rate limit hit; lowering the rate');
  }

  async function onSuccess(u: UpstreamKey): Promise<void> {
    const limit = options.limits[u].rpm;
    const s = sharedOf(u);
    if (limit === null || s.rate === null || s.rate >= limit || Date.now() - s.lastRaise < INCREASE_EVERY_MS) return;
    s.lastRaise = Date.now();
    if ((await redis.set(key(u, 'increase'), owner, 'PX', INCREASE_EVERY_MS, 'NX')) !== 'OK') return;
    const raised = Number(await redis.incrbyfloat(key(u, 'rate'), limit * INCREASE_SHARE));
    if (raised >= limit) await redis.set(key(u, 'rate'), String(limit));
    s.rate = Math.min(limit, raised);
  }

  return {
    async run(upstream, fn, signal) {
      const asked = options.observer ? performance.now() : 0;
      // Most calls have no rate point to take, no pause to wait out and a fresh read: they skip the awaits.
      const s = sharedOf(upstream);
      const now = Date.now();
      if (s.rate !== null || s.pausedUntil > now || now - s.readAt >= refreshMs) await takeRate(upstream, signal);
      const held = takeSpare(upstream) ?? (await lease(upstream, signal));
      options.observer?.waited(upstream, (performance.now() - asked) / 1000);
      try {
        const result = await fn();
        options.observer?.called(upstream, 'ok');
        if (options.limits[upstream].rpm !== null) onSuccess(upstream).catch(() => undefined);
        return result;
      } catch (err) {
        const limited = err instanceof AssistantError && err.reason === 'rate_limited';
        options.observer?.called(upstream, limited ? 'rate_limited' : 'error');
        if (limited) await on429(upstream, err.retryAfterMs).catch(() => undefined);
        throw err;
      } finally {
        const freeing = release(upstream, held);
        if (freeing) await freeing;
      }
    },
    async capacity(upstream) {
      const s = await read(upstream);
      return { rpm: s.rate, maxInFlight: options.limits[upstream].maxInFlight };
    },
    async effectiveRpm(upstream) {
      sharedOf(upstream).readAt = 0;
      return (await read(upstream)).rate;
    },
  };
}
