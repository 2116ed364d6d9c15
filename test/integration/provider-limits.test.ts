import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AssistantError } from '../../src/assistants/assistant-error.ts';
import { createRedisGate, DECREASE, type UpstreamLimits } from '../../src/assistants/upstream-gate.ts';
import type { UpstreamKey } from '../../src/assistants/types.ts';
import { createLogger } from '../../src/logger.ts';
import { clearRedisPrefix } from '../helpers/app.ts';

/**
 * The provider gate shared by worker processes through real Redis: two gate
 * instances on two connections stand for two processes (a third, real
 * process holds a lease and is killed). Together they stay within the
 * account's calls in flight and requests per minute; a dead holder's lease
 * expires; a 429 with Retry-After pauses every instance and lowers the rate,
 * and successes raise it back.
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `sightline-test:${randomBytes(5).toString('hex')}`;
const connections: Redis[] = [];
let child: ChildProcess | null = null;

function limits(openai: UpstreamLimits): Record<UpstreamKey, UpstreamLimits> {
  const none = { rpm: null, maxInFlight: 100 };
  return { openai, anthropic: none, perplexity: none, gemini: none, serp: none, appGateway: none };
}

function gate(openai: UpstreamLimits, options: { leaseMs?: number; sub?: string } = {}) {
  const redis = new Redis(REDIS_URL);
  connections.push(redis);
  return createRedisGate(redis, {
    prefix: `${prefix}:${options.sub ?? 'x'}`,
    limits: limits(openai),
    logger: createLogger('silent'),
    leaseMs: options.leaseMs,
  });
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts the commands sent on a connection from now on. */
function countCommands(connection: Redis): { sent: number } {
  const count = { sent: 0 };
  const send = connection.sendCommand.bind(connection);
  connection.sendCommand = (...args: Parameters<typeof send>) => {
    count.sent++;
    return send(...args);
  };
  return count;
}

/** Leases in a set once the event loop has turned, when a slot nobody took goes back (a spare slot is kept until then). */
async function leasesAfterTurn(redis: Redis, key: string): Promise<number> {
  await new Promise((r) => setImmediate(r));
  await wait(20);
  return redis.zcard(key);
}

afterEach(() => {
  child?.kill('SIGKILL');
  child = null;
});
afterAll(async () => {
  for (const c of connections) c.disconnect();
  await clearRedisPrefix(REDIS_URL, prefix);
});

describe('the provider gate across processes', () => {
  it('keeps two instances together within the calls in flight and the requests per minute', async () => {
    const openai = { rpm: 600, maxInFlight: 3 };
    const [a, b] = [gate(openai, { sub: 'cap' }), gate(openai, { sub: 'cap' })];
    let inFlight = 0;
    let most = 0;
    const starts: number[] = [];
    const call = async () => {
      starts.push(Date.now());
      inFlight++;
      most = Math.max(most, inFlight);
      await wait(40);
      inFlight--;
    };
    const t0 = Date.now();
    // 30 calls, half through each instance, all asked at once.
    await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).run('openai', call)));
    expect(starts).toHaveLength(30);
    expect(most).toBeLessThanOrEqual(3);
    // 600 rpm is 10 per one-second window: no second holds more than two windows' worth,
    // and 30 calls need at least three windows (two full seconds after the first).
    starts.sort((x, y) => x - y);
    for (const s of starts) expect(starts.filter((t) => t >= s && t < s + 1000).length).toBeLessThanOrEqual(20);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1900);
  });

  it('spreads the calls that take their rate points together as a window opens over about half of it, not all at once', async () => {
    // 600 rpm: windows of a second holding 10 points. Ten calls asked at once into an idle account all get a point.
    const g = gate({ rpm: 600, maxInFlight: 10 }, { sub: 'even' });
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 10 }, () => g.run('openai', async () => void starts.push(Date.now()))));
    starts.sort((x, y) => x - y);
    // Sent together they start within a few milliseconds (a provider's bucket sees one burst); spread, the last waits about
    // half the window (1000 ms / (0 points left + 2)).
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(300);
    expect(starts.at(-1)! - starts[0]!).toBeLessThan(1000);
  });

  it("hands a finished call's slot to a waiting call of the same process, and still gives the other process its turns", async () => {
    const openai = { rpm: null, maxInFlight: 2 };
    const [busy, other] = [gate(openai, { sub: 'handoff' }), gate(openai, { sub: 'handoff' })];
    let inFlight = 0;
    let most = 0;
    const call = (who: string[], name: string) => async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      who.push(name);
      await wait(5);
      inFlight--;
    };
    const order: string[] = [];
    // Commands the busy instance sends, counted on its own connection.
    const commands = countCommands(connections.at(-2)!);
    // 400 short calls on 2 slots, asked at once; the other instance asks for one call a moment later.
    const busyRun = Promise.all(Array.from({ length: 400 }, () => busy.run('openai', call(order, 'busy'))));
    await wait(50);
    const otherStarted = Date.now();
    let otherFirst = 0;
    await other.run('openai', async () => {
      otherFirst = Date.now() - otherStarted;
      await call(order, 'other')();
    });
    await busyRun;
    expect(most).toBeLessThanOrEqual(2);
    expect(order.filter((n) => n === 'busy')).toHaveLength(400);
    // The other process got a slot while the busy one still had calls waiting, within a hand-off period or so.
    expect(order.indexOf('other')).toBeLessThan(order.length - 1);
    expect(otherFirst).toBeLessThan(2000);
    // Without hand-offs each of the 400 calls would take its slot from Redis and give it back (MULTI, 3 commands, EXEC, ZREM),
    // and each waiting call would poll on its own.
    expect(commands.sent).toBeLessThan(400);
  });

  it('gives a finished slot to the next call its process makes at once, with no Redis round trip, and frees it when nobody takes it', async () => {
    const sub = 'spare';
    const g = gate({ rpm: null, maxInFlight: 10 }, { sub });
    const commands = countCommands(connections.at(-1)!);
    let inFlight = 0;
    let most = 0;
    // Ten callers on ten slots, each making 40 calls one after another: nobody ever waits for a slot.
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let i = 0; i < 40; i++) {
          await g.run('openai', async () => {
            inFlight++;
            most = Math.max(most, inFlight);
            await wait(1);
            inFlight--;
          });
        }
      }),
    );
    expect(most).toBeLessThanOrEqual(10);
    // Taking each slot from Redis and giving it back would be 6 commands a call (MULTI, 3 commands, EXEC, ZREM): 2,400.
    // Each slot serves up to 32 calls (or 500 ms) before it goes back.
    expect(commands.sent).toBeLessThan(400);
    // A spare slot nobody took goes back to Redis once the event loop turns.
    const redis = new Redis(REDIS_URL);
    connections.push(redis);
    const key = `${prefix}:${sub}:limits:openai:inflight`;
    expect(await leasesAfterTurn(redis, key)).toBe(0);
  });

  it('frees the lease of a process that died holding it', async () => {
    const sub = 'dead';
    const key = `${prefix}:${sub}:limits:openai:inflight`;
    child = spawn(
      process.execPath,
      [path.resolve('test/helpers/gate-holder.ts'), REDIS_URL, `${prefix}:${sub}`, '1500'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child?.stdout?.on('data', (d: Buffer) => d.toString().includes('holding') && resolve());
      child?.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
    });
    const redis = new Redis(REDIS_URL);
    connections.push(redis);
    expect(await redis.zcard(key)).toBe(1);
    child.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));
    child = null;
    // The one slot is the dead process's until its lease runs out; then another instance gets it.
    const g = gate({ rpm: null, maxInFlight: 1 }, { sub });
    let ran = false;
    await g.run('openai', async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(await leasesAfterTurn(redis, key)).toBe(0);
  });

  it('keeps a live holder slot past its lease by renewing it', async () => {
    const sub = 'renew';
    const [a, b] = [
      gate({ rpm: null, maxInFlight: 1 }, { sub, leaseMs: 300 }),
      gate({ rpm: null, maxInFlight: 1 }, { sub, leaseMs: 300 }),
    ];
    const order: string[] = [];
    let release!: () => void;
    const held = a.run('openai', () => {
      order.push('a start');
      return new Promise<void>((r) => (release = r));
    });
    while (order.length === 0) await wait(10);
    const second = b.run('openai', async () => {
      order.push('b start');
    });
    // Three leases long: a renews, so b still waits.
    await wait(900);
    order.push('a end');
    release();
    await Promise.all([held, second]);
    expect(order).toEqual(['a start', 'a end', 'b start']);
  });

  it('pauses every instance for a Retry-After, lowers the rate, and raises it back on success', async () => {
    const openai = { rpm: 6000, maxInFlight: 10 };
    const [a, b] = [gate(openai, { sub: 'adapt' }), gate(openai, { sub: 'adapt' })];
    expect(await b.effectiveRpm('openai')).toBe(6000);
    // Two calls in flight, one through each instance, both refused: one burst of 429s, one decrease.
    const refusedAt = Date.now();
    const refuse = (retryAfterMs: number | null) => async () => {
      throw AssistantError.fromStatus(429, 'Rate limit reached', { provider: 'openai', retryAfterMs });
    };
    const outcomes = await Promise.allSettled([a.run('openai', refuse(1500)), b.run('openai', refuse(null))]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(await a.effectiveRpm('openai')).toBeCloseTo(6000 * DECREASE, 5);
    // The other instance sees the lower rate and waits out the pause before its next call starts.
    expect(await b.effectiveRpm('openai')).toBeCloseTo(6000 * DECREASE, 5);
    let startedAt = 0;
    await b.run('openai', async () => {
      startedAt = Date.now();
    });
    expect(startedAt - refusedAt).toBeGreaterThanOrEqual(1400);
    // Successes raise it by steps back to the limit, never past it.
    const seen: number[] = [];
    for (let i = 0; i < 200 && (seen.at(-1) ?? 0) < 6000; i++) {
      await (i % 2 ? a : b).run('openai', async () => undefined);
      seen.push((await a.effectiveRpm('openai')) ?? 0);
      await wait(50);
    }
    expect(seen.at(-1)).toBe(6000);
    expect(new Set(seen.filter((r) => r > 6000 * DECREASE && r < 6000)).size).toBeGreaterThanOrEqual(2);
    expect(Math.max(...seen)).toBe(6000);
  });
});
