import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';

// Compare-and-act so a process never releases or extends a lock it lost.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

/**
 * What a lock guards on one site: `facts` (scan analysis, reanalysis),
 * `pages` (sitemap imports), `crawlers` (crawler checks), `traffic` (server
 * log imports). Separate locks, so a slow sitemap never holds back a scan.
 */
export type SiteLockScope = 'facts' | 'pages' | 'crawlers' | 'traffic';

/** What `withSiteLock` answers when another process holds the lock: the caller decides (a job re-delays, a request answers 409). */
export const BUSY: unique symbol = Symbol('site busy');
export type Busy = typeof BUSY;

/**
 * Runs `fn` holding the site's lock (a Redis key), or answers BUSY at once
 * when another process holds it: writers of a site's facts (scan analysis,
 * reanalysis, deleting the site) never run at once on one site. The TTL is
 * renewed while `fn` runs, so a crashed worker frees the site within
 * JOB_LOCK_MS; `fn`'s signal aborts if the lock is lost meanwhile.
 */
export async function withSiteLock<T>(
  ctx: AppContext,
  siteId: number,
  fn: (signal: AbortSignal) => Promise<T>,
  scope: SiteLockScope = 'facts',
): Promise<T | Busy> {
  const key = `${ctx.config.redisPrefix}:lock:site:${siteId}${scope === 'facts' ? '' : `:${scope}`}`;
  const TTL_MS = ctx.config.jobLockMs;
  const RENEW_MS = Math.max(250, Math.floor(TTL_MS / 3));
  const token = randomUUID();
  const got = await ctx.redis.set(key, token, 'PX', TTL_MS, 'NX');
  if (got !== 'OK') return BUSY;
  const lost = new AbortController();
  const renew = setInterval(() => {
    ctx.redis.eval(EXTEND, 1, key, token, String(TTL_MS)).then(
      (ok) => {
        if (ok !== 1) lost.abort(new Error(`lost the lock of site ${siteId}`));
      },
      () => undefined,
    );
  }, RENEW_MS);
  try {
    return await fn(lost.signal);
  } finally {
    clearInterval(renew);
    await ctx.redis.eval(RELEASE, 1, key, token).catch(() => undefined);
  }
}
