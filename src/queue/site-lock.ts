import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { RetryLaterError } from './retry-later.ts';

// Compare-and-act so a worker never releases or extends a lock it lost.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

/**
 * What a lock guards on one site: `facts` (scan analysis, reanalysis),
 * `pages` (sitemap imports), `crawlers` (crawler checks), `traffic` (server
 * log imports). Separate locks, so a slow sitemap never holds back a scan.
 */
export type SiteLockScope = 'facts' | 'pages' | 'crawlers' | 'traffic';

/**
 * Runs `fn` holding the site's lock: jobs that write a site's facts (scan
 * analysis, reanalysis) never run at once on one site. The TTL is renewed
 * while `fn` runs, so a crashed worker frees the site within JOB_LOCK_MS (30 s). When the
 * lock is held elsewhere the job is re-delayed (RetryLaterError).
 */
export async function withSiteLock<T>(ctx: AppContext, siteId: number, fn: (signal: AbortSignal) => Promise<T>, scope: SiteLockScope = 'facts'): Promise<T> {
  const key = `${ctx.config.redisPrefix}:lock:site:${siteId}${scope === 'facts' ? '' : `:${scope}`}`;
  const TTL_MS = ctx.config.jobLockMs;
  const RENEW_MS = Math.max(250, Math.floor(TTL_MS / 3));
  const token = randomUUID();
  const got = await ctx.redis.set(key, token, 'PX', TTL_MS, 'NX');
  if (got !== 'OK') throw new RetryLaterError(`site ${siteId} is locked by another job`, 2_000);
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
