import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { METRICS } from '../../src/telemetry/metric-catalog.ts';
import { MetricsRecorder, readSharedMetrics } from '../../src/telemetry/shared-metrics.ts';
import { clearRedisPrefix } from '../helpers/app.ts';

/**
 * Worker processes' counts, summed in one Redis hash: histograms arrive
 * with cumulative buckets (every bucket, from the first flush), several
 * processes add up, and counts a failed flush could not add are added by
 * the next.
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `sightline-test:${randomBytes(5).toString('hex')}`;
let redis: Redis;

const value = async (name: string, labels: Record<string, string>) =>
  (await readSharedMetrics(redis, prefix)).find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;

beforeAll(() => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  redis.disconnect();
  await clearRedisPrefix(REDIS_URL, prefix);
});

describe('metrics counted in workers and summed in Redis', () => {
  it('adds histograms with cumulative buckets and counters, from several processes', async () => {
    const one = new MetricsRecorder(redis, prefix);
    const two = new MetricsRecorder(redis, prefix);
    for (const seconds of [0.003, 0.2, 7]) one.observe(METRICS.upstreamGateWait, { upstream: 'openai' }, seconds);
    two.observe(METRICS.upstreamGateWait, { upstream: 'openai' }, 100);
    one.count(METRICS.upstreamCalls, { upstream: 'openai', outcome: 'ok' }, 2);
    two.count(METRICS.upstreamCalls, { upstream: 'openai', outcome: 'ok' });
    await Promise.all([one.close(), two.close()]);

    const bucket = (le: string) => value('sightline_provider_gate_wait_seconds_bucket', { upstream: 'openai', le });
    expect(await bucket('0.001')).toBe(0);
    expect(await bucket('0.005')).toBe(1);
    expect(await bucket('0.5')).toBe(2);
    expect(await bucket('5')).toBe(2);
    expect(await bucket('15')).toBe(3);
    expect(await bucket('60')).toBe(3);
    expect(await bucket('+Inf')).toBe(4);
    expect(await value('sightline_provider_gate_wait_seconds_count', { upstream: 'openai' })).toBe(4);
    expect(await value('sightline_provider_gate_wait_seconds_sum', { upstream: 'openai' })).toBeCloseTo(107.203, 6);
    expect(await value('sightline_provider_calls_total', { upstream: 'openai', outcome: 'ok' })).toBe(3);
  });

  it('keeps what a failed flush could not add for the next one', async () => {
    const recorder = new MetricsRecorder(redis, prefix);
    recorder.count(METRICS.jobsStalled, { queue: 'scan' }, 2);
    const refused = vi.spyOn(redis, 'multi').mockImplementationOnce(() => {
      const multi = { hincrbyfloat: () => multi, exec: () => Promise.reject(new Error('connection lost')) };
      // The recorder uses only these two calls of a MULTI.
      return multi as unknown as ReturnType<Redis['multi']>;
    });
    await recorder.flush();
    expect(refused).toHaveBeenCalledTimes(1);
    expect(await value('sightline_jobs_stalled_total', { queue: 'scan' })).toBeUndefined();
    recorder.count(METRICS.jobsStalled, { queue: 'scan' });
    await recorder.close();
    expect(await value('sightline_jobs_stalled_total', { queue: 'scan' })).toBe(3);
  });

  it('skips fields that are not series of the catalog', async () => {
    await redis.hset(`${prefix}:metrics`, 'not json', '1', JSON.stringify(['some_other_metric', {}]), '5');
    const names = (await readSharedMetrics(redis, prefix)).map((s) => s.name);
    expect(names).not.toContain('some_other_metric');
    expect(names).toContain('sightline_provider_calls_total');
  });
});
