import type { Config } from './config.ts';
import { closeContext, createContext, type AppContext } from './context.ts';
import { ensureDatabase, migrateToLatest } from './db/migrate.ts';
import { allRoutes } from './http/routes/index.ts';
import { createHttpServer } from './http/server.ts';

/** Runs `fn` until SIGINT/SIGTERM, then its cleanup, once. */
export function onShutdown(cleanup: () => Promise<void>, log: { info(o: object, m: string): void }): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    cleanup().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

export async function migrate(config: Config): Promise<string[]> {
  await ensureDatabase(config.databaseUrl);
  const { createDb } = await import('./db/database.ts');
  const db = createDb(config.databaseUrl, { max: 1 });
  try {
    return await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

export async function startApi(ctx: AppContext): Promise<{ url: string; close(): Promise<void> }> {
  const http = createHttpServer(ctx, allRoutes);
  const url = await http.listen(ctx.config.port, ctx.config.host);
  return { url, close: () => http.close() };
}

export async function runApi(config: Config): Promise<void> {
  const ctx = createContext(config, { role: 'api' });
  const api = await startApi(ctx);
  ctx.logger.info({ url: api.url, variant: config.apiVariant }, 'API listening');
  onShutdown(async () => {
    await api.close();
    await closeContext(ctx);
  }, ctx.logger);
}
