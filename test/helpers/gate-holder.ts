/**
 * A process that takes one in-flight lease of the Redis gate and holds it
 * until killed (test/integration/provider-limits.test.ts kills it with
 * SIGKILL to show a dead holder's lease expires). Args: redis URL, prefix,
 * lease ms. Prints "holding" once the lease is taken.
 */
import { Redis } from 'ioredis';
import { createRedisGate } from '../../src/assistants/upstream-gate.ts';
import { createLogger } from '../../src/logger.ts';

const [redisUrl = 'redis://127.0.0.1:6379', prefix = 'gate-holder', leaseMs = '1000'] = process.argv.slice(2);
const redis = new Redis(redisUrl);
const one = { rpm: null, maxInFlight: 1 };
const gate = createRedisGate(redis, {
  prefix,
  leaseMs: Number(leaseMs),
  logger: createLogger('silent'),
  limits: { openai: one, anthropic: one, perplexity: one, gemini: one, serp: one, appGateway: one },
});
void gate.run('openai', () => {
  process.stdout.write('holding\n');
  return new Promise<never>(() => undefined);
});
