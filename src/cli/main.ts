import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { PLANS } from '../domain/workspace/plans.ts';
import { KEY_ROLES, PERSON_ROLES } from '../domain/workspace/roles.ts';
import { isProviderKey, type ProviderKey } from '../assistants/catalog.ts';
import { AppError } from '../errors.ts';
import { microsToUsd, usdToMicros } from '../money.ts';

/**
 * Operator CLI (CONTRACT.md "Operator CLI"): one JSON object on stdout and
 * exit 0, or a message on stderr and a non-zero exit. Each command imports
 * what it needs when it runs: loading every module up front made every
 * invocation take two seconds.
 */

class UsageError extends Error {}

const id = z.coerce.number().int().positive();
const count = z.coerce.number().int().min(0);
const usd = z.coerce.number().finite().positive();

type Spec = Record<string, { type: 'string' | 'boolean' }>;

function args<S extends z.ZodRawShape>(argv: string[], shape: S): z.output<z.ZodObject<S>> {
  const options: Spec = {};
  for (const name of Object.keys(shape)) options[name] = { type: shape[name] instanceof z.ZodBoolean ? 'boolean' : 'string' };
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const parsed = z.object(shape).safeParse(values);
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '));
  return parsed.data;
}

/** CLI flags are kebab-case; schemas use the same names. */
const USAGE = `usage: sightline <command>
  migrate
  org create --name NAME [--plan free|starter|pro|enterprise] [--balance-usd N]
  org limits --org ID [--sites N] [--prompts-per-site N] [--scans-per-month N] [--members N]
  org branding --org ID [--report-name NAME] [--report-logo URL]
  user create --email EMAIL --name NAME
  member add --org ID --user ID --role owner|admin|member|viewer
  member remove --org ID --user ID
  key create --org ID --user ID --name NAME [--role viewer|member|admin]
  key revoke --id ID
  balance topup --org ID --usd N
  answers import --project ID --file F.jsonl
  scan start --project ID [--providers a,b] [--label TEXT] [--watch]
  scan watch --project ID [--scan ID]
  demo
  simulator [--port 4010]
  worker [--queues scan,reanalyse,...]
  api
  start                      (what npm start runs: migrate, demo, API, workers, simulator)`;

async function withContext<T>(config: Config, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const [{ closeContext, createContext }, { createLogger }] = await Promise.all([import('../context.ts'), import('../logger.ts')]);
  const ctx = createContext(config, { role: 'cli', logger: createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, { fd: 2 }), dbPoolSize: 2 });
  try {
    return await fn(ctx);
  } finally {
    await closeContext(ctx);
  }
}

type Command = (argv: string[], config: Config) => Promise<unknown>;

const commands: Record<string, Command> = {
  migrate: async (argv, config) => {
    args(argv, {});
    const { migrate } = await import('../main.ts');
    return { migrated: await migrate(config) };
  },
  'org create': (argv, config) => {
    const a = args(argv, { name: z.string().min(1), plan: z.enum(PLANS).optional(), 'balance-usd': z.coerce.number().finite().min(0).optional() });
    return withContext(config, async (ctx) => (await import('../domain/workspace/orgs.ts')).createOrg(ctx.db, { name: a.name, plan: a.plan, balanceMicros: usdToMicros(a['balance-usd'] ?? 0) }));
  },
  'org limits': (argv, config) => {
    const a = args(argv, { org: id, sites: count.optional(), 'prompts-per-site': count.optional(), 'scans-per-month': count.optional(), members: count.optional() });
    return withContext(config, async (ctx) =>
      (await import('../domain/workspace/orgs.ts')).setOrgLimits(ctx.db, a.org, { sites: a.sites, promptsPerSite: a['prompts-per-site'], scansPerMonth: a['scans-per-month'], members: a.members }),
    );
  },
  'org branding': (argv, config) => {
    const a = args(argv, { org: id, 'report-name': z.string().optional(), 'report-logo': z.url().or(z.literal('')).optional() });
    return withContext(config, async (ctx) => (await import('../domain/workspace/orgs.ts')).setOrgBranding(ctx.db, a.org, { reportName: a['report-name'], reportLogo: a['report-logo'] }));
  },
  'user create': (argv, config) => {
    const a = args(argv, { email: z.email(), name: z.string().min(1) });
    return withContext(config, async (ctx) => (await import('../domain/workspace/users.ts')).createUser(ctx.db, a));
  },
  'member add': (argv, config) => {
    const a = args(argv, { org: id, user: id, role: z.enum(PERSON_ROLES) });
    return withContext(config, async (ctx) => (await import('../domain/workspace/members.ts')).addMember(ctx, { orgId: a.org, userId: a.user, role: a.role }));
  },
  'member remove': (argv, config) => {
    const a = args(argv, { org: id, user: id });
    return withContext(config, async (ctx) => {
      await (await import('../domain/workspace/members.ts')).removeMemberAsOperator(ctx, a.org, a.user);
      return { orgId: a.org, userId: a.user, removed: true };
    });
  },
  'key create': (argv, config) => {
    const a = args(argv, { org: id, user: id, name: z.string().min(1).max(100), role: z.enum(KEY_ROLES).optional() });
    return withContext(config, async (ctx) => (await import('../domain/workspace/api-keys.ts')).createApiKey(ctx.db, { orgId: a.org, userId: a.user, name: a.name, role: a.role }));
  },
  'key revoke': (argv, config) => {
    const a = args(argv, { id });
    return withContext(config, async (ctx) => (await import('../domain/workspace/api-keys.ts')).revokeApiKey(ctx, a.id));
  },
  'balance topup': (argv, config) => {
    const a = args(argv, { org: id, usd });
    return withContext(config, async (ctx) => {
      const { topUp } = await import('../domain/workspace/billing.ts');
      const { balanceMicros } = await topUp(ctx.db, { orgId: a.org, amountMicros: usdToMicros(a.usd), description: 'Operator top-up' });
      return { orgId: a.org, balanceUsd: microsToUsd(balanceMicros) };
    });
  },
  'answers import': (argv, config) => {
    const a = args(argv, { project: id, file: z.string().min(1) });
    return withContext(config, async (ctx) => {
      const site = await ctx.db.selectFrom('sites').select(['id', 'orgId']).where('id', '=', a.project).executeTakeFirst();
      if (!site) throw new AppError(404, `No project with id ${a.project}`);
      const { importAnswers, parseAnswerLines } = await import('../domain/answers/import.ts');
      const rows = parseAnswerLines(await readFile(a.file, 'utf8'));
      const result = await importAnswers(ctx, site.orgId, site.id, rows);
      return { scanId: result.scanId, answers: result.answers, promptsCreated: result.promptsCreated };
    });
  },
  'scan start': (argv, config) => {
    const a = args(argv, { project: id, providers: z.string().optional(), label: z.string().max(200).optional(), watch: z.boolean().optional() });
    return withContext(config, async (ctx) => {
      const site = await ctx.db.selectFrom('sites').selectAll().where('id', '=', a.project).executeTakeFirst();
      if (!site) throw new AppError(404, `No project with id ${a.project}`);
      const providers = a.providers?.split(',').map((p) => p.trim()).filter(Boolean);
      const bad = providers?.filter((p) => !isProviderKey(p)) ?? [];
      if (bad.length) throw new UsageError(`--providers: unknown ${bad.join(', ')}`);
      const [{ startScan }, { watchScan }] = await Promise.all([import('../domain/scans/scans.ts'), import('./scan-watch.ts')]);
      const started = await startScan(ctx, site, site.createdBy, { providers: providers as ProviderKey[] | undefined, label: a.label ?? 'Started from the CLI' });
      return a.watch ? watchScan(ctx, site.id, started.scan.id) : started;
    });
  },
  'scan watch': (argv, config) => {
    const a = args(argv, { project: id, scan: id.optional() });
    return withContext(config, async (ctx) => {
      const site = await ctx.db.selectFrom('sites').select('id').where('id', '=', a.project).executeTakeFirst();
      if (!site) throw new AppError(404, `No project with id ${a.project}`);
      const { watchScan } = await import('./scan-watch.ts');
      return watchScan(ctx, site.id, a.scan ?? null);
    });
  },
  demo: (argv, config) => {
    args(argv, {});
    return withContext(config, async (ctx) => {
      const [{ migrate }, { seedDemo }] = await Promise.all([import('../main.ts'), import('./demo.ts')]);
      await migrate(config);
      const seed = await seedDemo(ctx, '.sightline');
      return { ...seed, url: config.publicBaseUrl };
    });
  },
  simulator: async (argv, config) => {
    const a = args(argv, { port: z.coerce.number().int().min(0).max(65535).optional() });
    const { runSimulatorCli } = await import('../simulator/cli.ts');
    await runSimulatorCli(a.port ?? config.assistants.simulatorPort, config);
    return undefined;
  },
  worker: async (argv, config) => {
    const a = args(argv, { queues: z.string().optional() });
    const { runWorker } = await import('../queue/worker.ts');
    await runWorker(config, a.queues?.split(',').map((q) => q.trim()).filter(Boolean));
    return undefined;
  },
  api: async (argv, config) => {
    args(argv, {});
    const { runApi } = await import('../main.ts');
    await runApi(config);
    return undefined;
  },
  start: async (argv, config) => {
    args(argv, {});
    const { runStart } = await import('./start.ts');
    await runStart(config);
    return undefined;
  },
};

export async function main(argv: string[]): Promise<number> {
  const [first, second] = argv;
  const two = `${first} ${second}`;
  const name = commands[two] ? two : first && commands[first] ? first : undefined;
  if (!name) {
    process.stderr.write(`${first ? `unknown command: ${argv.slice(0, 2).join(' ')}\n` : ''}${USAGE}\n`);
    return 2;
  }
  try {
    const config = loadConfig();
    const rest = argv.slice(name.split(' ').length);
    const result = await (commands[name] as Command)(rest, config);
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`sightline ${name}: ${err.message}\n${USAGE}\n`);
      return 2;
    }
    const message = err instanceof AppError || err instanceof ConfigError ? err.message : (err as Error).stack ?? String(err);
    process.stderr.write(`sightline ${name}: ${message}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
// Long-running commands (api, worker, simulator, start) keep the event loop alive themselves.
if (code !== 0 || !['api', 'worker', 'simulator', 'start'].includes(process.argv[2] ?? '')) process.exit(code);
