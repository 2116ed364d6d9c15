import type { Config } from '../config.ts';
import { loadJobTable } from '../../jobs/load-table.ts';
import { closeContext, createContext, type AppContext } from '../context.ts';
import { onShutdown } from '../shutdown.ts';
import { allRoutes } from './routes/index.ts';
import { createHttpServer } from './server.ts';

/** The API process: the route table served on node:http. */
export async function startApi(ctx: AppContext): Promise<{ url: string; close(): Promise<void> }> {
  const http = createHttpServer(ctx, allRoutes);
  const url = await http.listen(ctx.config.port, ctx.config.host);
  return { url, close: () => http.close() };
}

export async function runApi(config: Config): Promise<void> {
  const ctx = createContext(config, { role: 'api', jobTable: loadJobTable });
  const api = await startApi(ctx);
  ctx.logger.info({ url: api.url, variant: config.apiVariant }, 'API listening');
  onShutdown(async () => {
    await api.close();
    await closeContext(ctx);
  }, ctx.logger);
}
