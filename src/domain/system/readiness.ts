import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';

/**
 * System: whether this process can reach what it needs. Readiness says
 * which dependency is down and never echoes driver errors or addresses.
 */

async function reachable(work: () => Promise<unknown>, ms: number): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  try {
    await Promise.race([work(), timeout]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

export async function readiness(ctx: AppContext) {
  const [postgres, redis] = await Promise.all([
    reachable(() => sql`SELECT 1`.execute(ctx.db), 2000),
    reachable(() => ctx.redis.ping(), 2000),
  ]);
  return { ready: postgres === 'ok' && redis === 'ok', postgres, redis };
}
