import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import { closeContext, createContext } from '../context.ts';
import { loadJobTable } from '../../jobs/load-table.ts';
import { ensureDemoSiteReads, seedDemo, startDemoScan } from './demo.ts';
import { DEMO_SITE_DOMAIN, demoSiteRoutes } from '../fixture-site/demo-site.ts';
import { startFixtureSite } from '../fixture-site/server.ts';
import { createLogger } from '../logger.ts';
import { migrate } from '../db/migrate.ts';

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'main.ts');

async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url} exited before it was ready`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

/**
 * What `npm start` runs after services are up: migrate, seed the demo on
 * first run, then run simulator, workers and API as child processes until
 * Ctrl-C, which stops all of them.
 */
export async function runStart(config: Config): Promise<void> {
  const log = createLogger(config.logLevel, { name: 'start' });
  const migrated = await migrate(config.databaseUrl);
  if (migrated.length) log.info({ migrated }, 'database migrated');

  // The demo brand's web site, beside the simulator: the demo site's pages and crawler check read it.
  const demoSite = await startFixtureSite({ port: config.demoSitePort, routes: demoSiteRoutes() }).catch(
    (err: Error) => {
      log.warn(
        { err: err.message, port: config.demoSitePort },
        'demo site not started (DEMO_SITE_PORT in use?); the demo has no pages',
      );
      return null;
    },
  );
  const ctx = createContext(config, { role: 'cli', jobTable: loadJobTable, logger: log });
  const demo = await seedDemo(ctx, '.sightline');
  await ensureDemoSiteReads(ctx, demo).catch((err: Error) =>
    log.warn({ err: err.message }, 'demo pages, crawler check and server log not queued'),
  );

  const children: { name: string; proc: ChildProcess }[] = [];
  // A simulator we start ourselves answers every provider without a credential.
  // Children read their own config; they inherit this environment unchanged but for the simulator address.
  // npm start stays offline: every assistant answers from the simulator unless ASSISTANTS says otherwise.
  // eslint-disable-next-line no-restricted-properties
  const assistantsMode = process.env.ASSISTANTS || 'simulator';
  // Workers fetch the demo brand's site from the local one; a map the operator set for it wins.
  const demoMap = demoSite && !config.siteFetchMap.has(DEMO_SITE_DOMAIN) ? `${DEMO_SITE_DOMAIN}=${demoSite.url}` : null;
  // eslint-disable-next-line no-restricted-properties
  const siteFetchMap = [process.env.SITE_FETCH_MAP, demoMap].filter(Boolean).join(',');
  const env = {
    // eslint-disable-next-line no-restricted-properties
    ...process.env,
    SIMULATOR_URL: config.assistants.simulatorUrl,
    ASSISTANTS: assistantsMode,
    SITE_FETCH_MAP: siteFetchMap,
  };
  const run = (name: string, args: string[]) => {
    const proc = spawn(process.execPath, [CLI, ...args], { stdio: 'inherit', env });
    children.push({ name, proc });
    return proc;
  };

  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const { proc } of children) if (proc.exitCode === null) proc.kill('SIGTERM');
    const force = setTimeout(
      () => children.forEach(({ proc }) => proc.exitCode === null && proc.kill('SIGKILL')),
      15_000,
    );
    await Promise.all(
      children.map(({ proc }) => (proc.exitCode !== null ? null : new Promise((r) => proc.once('exit', r)))),
    );
    clearTimeout(force);
    process.exit(code);
  };
  process.once('SIGINT', () => void stopAll(0));
  process.once('SIGTERM', () => void stopAll(0));

  const simulator = run('simulator', ['simulator', '--port', String(config.assistants.simulatorPort)]);
  run('worker', ['worker']);
  const api = run('api', ['api']);
  for (const { name, proc } of children) {
    proc.once('exit', (code, signal) => {
      if (stopping) return;
      log.error({ process: name, code, signal }, 'a process stopped; stopping the others');
      void stopAll(1);
    });
  }

  const url = config.publicBaseUrl;
  try {
    await Promise.all([
      waitForHealth(`${config.assistants.simulatorUrl}/__sim/health`, simulator),
      waitForHealth(`${url}/healthz`, api),
    ]);
  } catch (err) {
    log.error({ err: (err as Error).message }, 'start failed');
    await closeContext(ctx);
    await stopAll(1);
    return;
  }
  const demoScan = await startDemoScan(ctx, demo).catch((err: Error) => {
    log.warn({ err: err.message }, 'demo scan not started');
    return null;
  });
  await closeContext(ctx);
  const curl = `curl -s -H 'Authorization: Bearer ${demo.key}' ${url}/whoami`;
  process.stdout.write(
    [
      '',
      '  Sightline is running.',
      `    API:        ${url}   (OpenAPI: ${url}/openapi.json)`,
      `    Simulator:  ${config.assistants.simulatorUrl}`,
      ...(demoSite ? [`    Demo site:  ${demoSite.url}   (www.${DEMO_SITE_DOMAIN}, through SITE_FETCH_MAP)`] : []),
      assistantsMode === 'simulator'
        ? '    Answers:    simulated: every assistant is answered by the bundled simulator (ASSISTANTS=auto or live with credentials for real ones)'
        : `    Answers:    ASSISTANTS=${assistantsMode}: assistants with a credential answer live${assistantsMode === 'auto' ? ', the rest from the simulator' : ''}`,
      `    Demo key:   ${demo.key}   (workspace ${demo.orgId}, project ${demo.siteId})`,
      '',
      `  Try:  ${curl}`,
      ...(demoScan
        ? [`        npx sightline scan watch --project ${demo.siteId}     (the demo's first scan, id ${demoScan})`]
        : []),
      `        curl -s -H 'Authorization: Bearer ${demo.key}' ${url}/projects/${demo.siteId}/scans`,
      `        curl -s -H 'Authorization: Bearer ${demo.key}' ${url}/projects/${demo.siteId}/pages`,
      `        curl -s -H 'Authorization: Bearer ${demo.key}' ${url}/projects/${demo.siteId}/crawlers`,
      `        curl -s -H 'Authorization: Bearer ${demo.key}' ${url}/projects/${demo.siteId}/crawler-traffic`,
      '',
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}
