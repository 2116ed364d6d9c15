/**
 * What bench/scan.ts and bench/answer-write.ts set up alike: the simulator
 * as a child process, a site of N active prompts in an org of its own, and
 * a process's CPU time read from /proc (the Postgres backends they meter).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../src/context.ts';
import type { AnswerRow, CitationJson, SiteRow } from '../src/db/schema.ts';
import type { NewAnswer } from '../src/domain/facts/answer-store.ts';
import type { Micros } from '../src/money.ts';
import { createSite } from '../src/domain/onboarding/index.ts';
import { addMember } from '../src/domain/orgs/members.ts';
import { createOrg, setOrgLimits } from '../src/domain/orgs/orgs.ts';
import { createUser } from '../src/domain/orgs/users.ts';
import { usdToMicros } from '../src/money.ts';

async function waitFor(url: string) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

/** `sightline simulator` on `port`, answering; `stop` ends it. */
export async function startSimulator(port: number): Promise<{ url: string; stop(): void }> {
  const sim = spawn(process.execPath, [path.resolve('src/cli/main.ts'), 'simulator', '--port', String(port)], {
    stdio: 'ignore',
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => void sim.kill('SIGTERM');
  try {
    await waitFor(`${url}/__sim/health`);
  } catch (err) {
    stop();
    throw err;
  }
  return { url, stop };
}

/** Kernel clock ticks per second, the unit of utime and stime in /proc/<pid>/stat. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** utime + stime of a process (or of a thread, given its stat file) in seconds, or null once it has ended. */
export function processCpu(pid: number, statFile = `/proc/${pid}/stat`): number | null {
  try {
    // The command name is in parentheses and may hold spaces: count fields after its closing one.
    const stat = readFileSync(statFile, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/**
 * A process's CPU seconds from /proc/<pid>/schedstat (nanoseconds of run
 * time), or from processCpu where schedstat cannot be read; null when it is
 * gone. /proc/<pid>/stat counts 10 ms clock ticks: read at both ends of a
 * scan of 500 answers, each backend's figure was off by up to 0.02 ms an
 * answer, and a scan has ten.
 */
export function preciseCpu(pid: number): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
  } catch {
    return processCpu(pid);
  }
}

/** The CPU seconds of one measured backend so far (preciseCpu), which must still be there: a bench's one connection. */
export function backendCpu(pid: number): number {
  const seconds = preciseCpu(pid);
  if (seconds === null) throw new Error(`the measured backend (pid ${pid}) is gone`);
  return seconds;
}

/**
 * A new enterprise org with $10,000, its owner, and the site Acme (competitors
 * Globex and Initech) with `prompts` active prompts: what each scanned site of
 * a bench starts from. `bench` and `label` name them apart.
 */
export async function benchSite(
  ctx: AppContext,
  bench: string,
  label: string,
  prompts: number,
): Promise<{ userId: number; site: SiteRow; promptIds: number[] }> {
  const org = await createOrg(ctx, {
    name: `Bench ${bench} ${label}`,
    plan: 'enterprise',
    balanceMicros: usdToMicros(10_000),
  });
  await setOrgLimits(ctx, org.id, { promptsPerSite: 5000 });
  const user = await createUser(ctx, { email: `bench-${bench}-${Date.now()}-${label}@example.com`, name: 'Bench' });
  await addMember(ctx, { orgId: org.id, userId: user.id, role: 'owner' });
  const site = await createSite(
    ctx,
    { orgId: org.id, userId: user.id },
    { name: 'Acme', url: `acme-${Date.now()}-${label}.com`, competitors: [{ name: 'Globex' }, { name: 'Initech' }] },
  );
  const rows = await ctx.db
    .insertInto('prompts')
    .values(
      Array.from({ length: prompts }, (_, i) => ({
        siteId: site.id,
        text: `Which Acme alternative is best for use case ${i}?`,
        status: 'active' as const,
      })),
    )
    .returning('id')
    .execute();
  const row = await ctx.db.selectFrom('sites').selectAll().where('id', '=', site.id).executeTakeFirstOrThrow();
  return { userId: user.id, site: row, promptIds: rows.map((p) => p.id) };
}

/** A stored answer (a row of `answers`), to be stored again for another scan, site and prompt, as the writer would. */
export function answerAgain(a: AnswerRow, target: { scanId: number; siteId: number; promptId: number }): NewAnswer {
  return {
    ...target,
    provider: a.provider,
    model: a.model,
    askedAt: new Date(),
    text: a.text,
    citations: a.citations as CitationJson[],
    searches: a.searches as string[],
    usage: a.usage as Record<string, unknown> | null,
    raw: a.raw,
    costMicros: a.costMicros as Micros,
    error: a.error,
    truncated: a.truncated,
    context: a.context,
    simulated: a.simulated,
  };
}
