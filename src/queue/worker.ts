import type { Config } from '../config.ts';
import { closeContext, createContext } from '../context.ts';
import { onShutdown } from '../main.ts';

/**
 * Worker process: runs the jobs of the job catalog. No job types exist yet
 * (scans, reanalysis and imports arrive with their issues), so it serves none.
 */
export async function runWorker(config: Config, queues?: string[]): Promise<void> {
  const ctx = createContext(config, { role: 'worker' });
  ctx.logger.info({ queues: queues ?? 'all' }, 'worker started');
  onShutdown(() => closeContext(ctx), ctx.logger);
}
