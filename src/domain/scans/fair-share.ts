import { sleep } from '../../assistants/retry.ts';
import type { UpstreamKey } from '../../assistants/types.ts';
import type { AppContext } from '../../context.ts';

/**
 * A site's turn at a provider account: every site with a scan running
 * against an upstream is listed in Redis (a sorted set scored by a heartbeat
 * deadline), and each gets an equal share of the account: 1/N of the
 * effective rate, paced evenly (one call every N x 60 s / rpm), and 1/N of
 * the calls in flight (rounded up). A site's scan runs in one process (the
 * site lock), so its share is kept there, with no Redis call per answer; the
 * account limits themselves are held by the gate across processes. When a
 * site's scan ends (or its process dies: the heartbeat stops) the others'
 * shares grow within a second.
 *
 * Shares are by site, weighted by nothing else: two equal scans finish
 * together, and a small scan started beside a large one gets half the account
 * at once instead of waiting behind it.
 */

const HEARTBEAT_MS = 5_000;
/** A site whose process stopped renewing it drops out after this long. */
const EXPIRES_MS = 15_000;
/** How often a lane re-reads how many sites share its upstream. */
const RECOUNT_MS = 500;
/**
 * Sites are paced at this share of the account's effective rate. The
 * provider counts requests when they arrive, we when they leave, and a few
 * milliseconds of jitter on a rate paced to the limit cost a 429 now and then,
 * each pausing every worker for its Retry-After (a second or more): 3% under
 * the limit sends more in the end. The gate still allows the full rate.
 */
export const PACE_SHARE = 0.97;

export interface SiteShare {
  /**
   * Runs `fn` in this site's next turn: calls are admitted one at a time, each
   * when the site has fewer than its share of calls in flight and its paced
   * slot has come, both computed from the count of sites at that moment (so a
   * site that joins slows the others from their next call, not after the calls
   * they had queued). `skip` (the scan stopped) lets a queued call through at once.
   */
  run<T>(fn: () => Promise<T>, skip?: () => boolean): Promise<T>;
  /** Calls this site may have in flight now: 1/N of the account's, rounded up. */
  concurrency(): number;
  /** Leaves the list (the scan is over); the others' shares grow at their next recount. */
  leave(): Promise<void>;
}

export async function joinShare(ctx: AppContext, upstream: UpstreamKey, siteId: number): Promise<SiteShare> {
  const gate = await ctx.gate();
  const key = `${ctx.config.redisPrefix}:share:${upstream}`;
  const member = String(siteId);
  let active = 1;
  let capacity = await gate.capacity(upstream);
  let countedAt = 0;
  let listed = false;
  let lastSlot = 0;
  let inFlight = 0;
  let counting: Promise<void> | null = null;
  let admitted: Promise<void> = Promise.resolve();
  let wake: (() => void) | null = null;

  async function recount(): Promise<void> {
    const now = Date.now();
    // The first count lists the site; after that the heartbeat keeps it listed and this drops the dead.
    const multi = ctx.redis.multi();
    if (!listed) multi.zadd(key, now + EXPIRES_MS, member);
    const result = await multi.zremrangebyscore(key, '-inf', now).zcount(key, now, '+inf').exec();
    listed = true;
    active = Math.max(1, Number(result?.at(-1)?.[1] ?? 1));
    capacity = await gate.capacity(upstream);
    countedAt = Date.now();
  }

  /**
   * Recounts every RECOUNT_MS. While the site keeps calling, the recount runs
   * behind its calls, which are admitted on the count made last (at most two
   * recount periods old): admissions are one at a time, and all of them
   * waited for the round trip.
   */
  async function fresh(): Promise<void> {
    const age = Date.now() - countedAt;
    if (age < RECOUNT_MS) return;
    const current = (counting ??= recount().finally(() => (counting = null)));
    if (age < 2 * RECOUNT_MS) {
      // A failed recount is tried again at the next admission.
      current.catch(() => undefined);
      return;
    }
    await current;
  }

  const concurrency = () => Math.max(1, Math.ceil(capacity.maxInFlight / active));

  /** The next call's admission, after every call queued before it. */
  function admit(skip: () => boolean): Promise<boolean> {
    const turn = admitted.then(async () => {
      if (skip()) return false;
      for (;;) {
        if (Date.now() - countedAt >= RECOUNT_MS) await fresh();
        if (inFlight < concurrency()) break;
        // Woken by a call that ends, or after a recount's time (the share may have grown).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, RECOUNT_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
        if (skip()) return false;
      }
      if (capacity.rpm !== null) {
        const interval = (60_000 * active) / (capacity.rpm * PACE_SHARE);
        const wait = lastSlot + interval - Date.now();
        if (wait > 0) await sleep(wait);
        lastSlot = Math.max(Date.now(), lastSlot + interval);
      }
      inFlight++;
      return true;
    });
    admitted = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  await recount();
  // Also while no call is admitted (every call of the site paused by a Retry-After), the site stays listed.
  const heartbeat = setInterval(() => {
    ctx.redis.zadd(key, Date.now() + EXPIRES_MS, member).catch(() => undefined);
  }, HEARTBEAT_MS);
  heartbeat.unref();

  return {
    async run(fn, skip = () => false) {
      if (!(await admit(skip))) return fn();
      try {
        return await fn();
      } finally {
        inFlight--;
        wake?.();
      }
    },
    concurrency,
    async leave() {
      clearInterval(heartbeat);
      await ctx.redis.zrem(key, member);
    },
  };
}
