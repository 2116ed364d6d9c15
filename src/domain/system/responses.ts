import { z } from 'zod';
import { named } from '../common/index.ts';

/** Response schemas of the probes (see src/domain/common/responses.ts). */

export const health = named('Health', 'The process is up', z.object({ status: z.literal('ok') }));

const reachable = z.enum(['ok', 'unavailable']);

export const readinessResponse = named(
  'Readiness',
  'Whether PostgreSQL and Redis are reachable (503 when either is not)',
  z.object({ status: z.enum(['ok', 'unavailable']), postgres: reachable, redis: reachable }),
);
