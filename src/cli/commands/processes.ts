import { z } from 'zod';
import type { Config } from '../../config.ts';
import { defineCommand, withContext } from '../command.ts';

/** Tracing, when the OTEL_* variables ask for it, starts before the process's modules load: its Postgres and Redis instrumentations patch them as they do. */
async function startTracingFirst(config: Config, role: 'api' | 'worker'): Promise<void> {
  if (config.tracing.enabled) await (await import('../../telemetry/tracing.ts')).startTracing(config, role);
}

/** The long-running processes and the set-up around them. */
export const processCommands = [
  defineCommand({
    name: 'migrate',
    usage: 'migrate',
    summary: 'Create the database when missing and run pending migrations',
    flags: {},
    run: async (_a, config) => ({ migrated: await (await import('../../db/migrate.ts')).migrate(config.databaseUrl) }),
  }),
  defineCommand({
    name: 'demo',
    usage: 'demo',
    summary: 'Seed the demo workspace once (kept in .sightline/demo.json) and print its key',
    flags: {},
    run: (_a, config) =>
      withContext(config, async (ctx) => {
        const [{ migrate }, { seedDemo }] = await Promise.all([import('../../db/migrate.ts'), import('../demo.ts')]);
        await migrate(config.databaseUrl);
        const { siteId, ...seed } = await seedDemo(ctx, '.sightline');
        // Printed for people, in the API's word: the site is the project they pass as --project.
        return { ...seed, projectId: siteId, url: config.publicBaseUrl };
      }),
  }),
  defineCommand({
    name: 'simulator',
    usage: 'simulator [--port 4010]',
    summary: "Run the offline assistant simulator (every provider's wire format)",
    flags: { port: z.coerce.number().int().min(0).max(65535).optional() },
    run: async (a, config) => {
      const { runSimulatorCli } = await import('../../simulator/cli.ts');
      await runSimulatorCli(a.port ?? config.assistants.simulatorPort, config);
      return undefined;
    },
  }),
  defineCommand({
    name: 'demo-site',
    usage: 'demo-site [--port 4020]',
    summary: "Serve the demo brand's web site (robots.txt, llms.txt, sitemaps, pages); npm start runs it itself",
    flags: { port: z.coerce.number().int().min(0).max(65535).optional() },
    run: async (a, config) => {
      const [{ startFixtureSite }, { demoSiteRoutes, DEMO_SITE_DOMAIN }] = await Promise.all([
        import('../../fixture-site/server.ts'),
        import('../../fixture-site/demo-site.ts'),
      ]);
      const site = await startFixtureSite({
        port: a.port ?? config.demoSitePort,
        host: config.host,
        routes: demoSiteRoutes(),
      });
      process.stdout.write(
        `${JSON.stringify({ demoSite: site.url, map: `SITE_FETCH_MAP=${DEMO_SITE_DOMAIN}=${site.url}` })}\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => void site.close().then(resolve);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      return undefined;
    },
  }),
  defineCommand({
    name: 'worker',
    usage: 'worker [--queues scan,reanalysis,...]',
    summary: 'Run job workers (every queue by default)',
    flags: { queues: z.string().optional() },
    run: async (a, config) => {
      await startTracingFirst(config, 'worker');
      const [{ runWorker }, { loadJobTable }] = await Promise.all([
        import('../../queue/worker.ts'),
        import('../../../jobs/load-table.ts'),
      ]);
      await runWorker(
        config,
        loadJobTable,
        a.queues
          ?.split(',')
          .map((q) => q.trim())
          .filter(Boolean),
      );
      return undefined;
    },
  }),
  defineCommand({
    name: 'api',
    usage: 'api',
    summary: 'Run the HTTP API',
    flags: {},
    run: async (_a, config) => {
      await startTracingFirst(config, 'api');
      const { runApi } = await import('../../http/api.ts');
      await runApi(config);
      return undefined;
    },
  }),
  defineCommand({
    name: 'start',
    usage: 'start',
    summary: 'What npm start runs: migrate, seed the demo, then the API, workers and simulator',
    flags: {},
    run: async (_a, config) => {
      const { runStart } = await import('../start.ts');
      await runStart(config);
      return undefined;
    },
  }),
];

/** Commands that keep running until stopped; the others exit when done. */
export const LONG_RUNNING = ['simulator', 'demo-site', 'worker', 'api', 'start'];
