import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createRedis } from '../../src/context.ts';
import { RATE_LIMITS } from '../../src/domain/orgs/index.ts';
import { RateLimiters } from '../../src/rate-limiters.ts';
import { clearRedisPrefix } from '../helpers/app.ts';

/**
 * The API's connection pipelines concurrent commands, and rate limiters are made
 * on first use. A limiter made in the same tick as another command used to reach
 * a pipeline without its script command: the request failed with a 503 and the
 * process saw an uncaught "results[i] is not iterable" (CI, prompt-rewrite).
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `sightline-test:${randomBytes(5).toString('hex')}`;
let redis: Redis;
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);

beforeAll(async () => {
  redis = createRedis(loadConfig({ REDIS_URL, REDIS_PREFIX: prefix, DATABASE_URL: 'postgres://unused/unused' }), 'api');
  await new Promise((ready) => redis.once('ready', ready));
  process.on('uncaughtException', onUncaught);
});
afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  redis.disconnect();
  await clearRedisPrefix(REDIS_URL, prefix);
});

describe('the API connection, pipelining commands', () => {
  it('counts a limiter made in the same tick as another command, and every reply stays with its command', async () => {
    const limiters = new RateLimiters(redis, prefix);
    const before = redis.get(`${prefix}:absent`);
    const consumed = limiters.limiter('rewrite', RATE_LIMITS.rewrite).consume('site-1');
    const after = redis.set(`${prefix}:after`, 'kept');
    const [got, res, set] = await Promise.all([before, consumed, after]);
    expect(got).toBeNull();
    expect(res.consumedPoints).toBe(1);
    expect(set).toBe('OK');
    await new Promise((r) => setTimeout(r, 50));
    expect(uncaught).toEqual([]);
  });
});
