/**
 * bench/reanalysis: re-reads N stored answers of one site (2 KB answers, 10
 * citations, 50 competitors x 5 aliases) with runReanalysis, the job's own
 * function. The answers are stored as a site scanned daily holds them (six
 * assistants, one scan a day; BENCH_SHAPE=one-day for the older one-scan data). Prints answers/s and peak RSS for 20,000 and 100,000 answers, so
 * "memory flat in the number of answers" shows as two close peaks.
 * Target: 5,000+ answers/s.
 */
import { BUSY } from '../src/domain/common/site-lock.ts';
import os from 'node:os';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext, type AppContext } from '../src/context.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { addMember } from '../src/domain/orgs/members.ts';
import { createOrg } from '../src/domain/orgs/orgs.ts';
import { runReanalysis } from '../src/domain/reanalysis/reanalysis.ts';
import { ensureAnswerMonths } from '../src/domain/facts/partitions.ts';
import { createSite } from '../src/domain/onboarding/new-site.ts';
import { createUser } from '../src/domain/orgs/users.ts';
import { runBench } from './lib.ts';
import { loadJobTable } from '../jobs/load-table.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench_reanalysis';
const COMPETITORS = Array.from({ length: 50 }, (_, i) => `Rival${i}`);
const PROMPTS = 500;

function answerText(i: number): string {
  const picks = [COMPETITORS[i % 50], COMPETITORS[(i * 7) % 50], COMPETITORS[(i * 13) % 50]];
  const brandLine = i % 3 === 0 ? '1. **Acme** is loved for its reliable support and fair pricing.\n' : '';
  const body = `Here are the options teams compare most often this year.\n\n${brandLine}2. **${picks[0]}** is a strong choice for larger teams, though setup takes time.\n3. ${picks[1]} has a generous free tier.\n4. ${picks[2]} integrates with most tools.\n\n`;
  const filler =
    'Reviewers on G2 and Capterra mention onboarding, reporting and price as the deciding factors. '.repeat(14);
  return (body + filler).slice(0, 2048);
}

async function seed(ctx: AppContext, answers: number): Promise<number> {
  const org = await createOrg(ctx, { name: 'Bench reanalysis', plan: 'enterprise' });
  const user = await createUser(ctx, { email: `bench-re-${Date.now()}-${answers}@example.com`, name: 'Bench' });
  await addMember(ctx, { orgId: org.id, userId: user.id, role: 'owner' });
  const site = await createSite(
    ctx,
    { orgId: org.id, userId: user.id },
    {
      name: 'Acme',
      url: `acme-${Date.now()}-${answers}.com`,
      competitors: COMPETITORS.map((name, i) => ({ name, domain: `rival${i}.com` })),
    },
  );
  await ctx.db
    .updateTable('competitors')
    .set((eb) => ({
      aliases: sql<
        string[]
      >`array[${eb.ref('name')} || ' Inc', ${eb.ref('name')} || ' Cloud', ${eb.ref('name')} || 'HQ', ${eb.ref('name')} || ' Pro', ${eb.ref('name')} || ' Suite']`,
    }))
    .where('siteId', '=', site.id)
    .execute();
  const prompts = await ctx.db
    .insertInto('prompts')
    .values(
      Array.from({ length: PROMPTS }, (_, i) => ({
        siteId: site.id,
        text: `Which tool is best for use case number ${i}?`,
      })),
    )
    .returning('id')
    .execute();
  const providers = ['openai', 'anthropic', 'perplexity', 'gemini', 'google-ai-overview', 'google-ai-mode'];
  const templates = Array.from({ length: 64 }, (_, i) => answerText(i));
  const citations = JSON.stringify(
    Array.from({ length: 10 }, (_, c) => ({
      url:
        c === 0
          ? `https://www.acme.com/pricing?utm_source=ai&id=${c}`
          : `https://www.rival${c}.com/blog/post-${c}?ref=x`,
      title: `Source ${c}`,
    })),
  );
  /*
   * As a site scanned daily holds them: each scan asks every prompt of every assistant once (3,000 answers), one
   * scan a day going back from today. BENCH_SHAPE=one-day is the shape this bench had before (one scan, one day,
   * answers made unique by 200 made-up providers such as `openai#33`), which multiplied the per-prompt,
   * per-provider rollup rows a rebuild writes about 30 times over any real site's (see bench/README "reanalysis").
   */
  const oneDay = process.env.BENCH_SHAPE === 'one-day';
  const perScan = PROMPTS * providers.length;
  const scanCount = oneDay ? 1 : Math.ceil(answers / perScan);
  const today = ctx.clock.now();
  const dayOf = (k: number) => new Date(today.getTime() - k * 86_400_000);
  await ensureAnswerMonths(ctx.db, dayOf(scanCount - 1), today);
  const scans = await ctx.db
    .insertInto('scans')
    .values(
      Array.from({ length: scanCount }, (_, k) => ({
        orgId: org.id,
        siteId: site.id,
        status: 'done' as const,
        trigger: 'import' as const,
        createdAt: dayOf(k),
      })),
    )
    .returning(['id', 'createdAt'])
    .execute();
  const scanIds = scans.map((s) => s.id);
  // Rows are generated in SQL: the bench measures re-reading, not seeding.
  for (let start = 0; start < answers; start += 20_000) {
    const n = Math.min(20_000, answers - start);
    const shaped = oneDay
      ? sql`SELECT ${scanIds[0]}::int AS scan_id, 1 + g % ${PROMPTS} AS p,
                   (${sql.val(providers)}::text[])[1 + (g / ${PROMPTS}) % 6] || CASE WHEN g >= ${perScan} THEN '#' || (g / ${perScan}) ELSE '' END AS provider,
                   now() AS at, g FROM generate_series(${start}::int, ${start + n - 1}::int) g`
      : sql`SELECT (${sql.val(scanIds)}::int[])[1 + g / ${perScan}] AS scan_id, 1 + g % ${PROMPTS} AS p,
                   (${sql.val(providers)}::text[])[1 + (g / ${PROMPTS}) % 6] AS provider,
                   now() - make_interval(days => g / ${perScan}) AS at, g FROM generate_series(${start}::int, ${start + n - 1}::int) g`;
    await sql`
      INSERT INTO answers (scan_id, site_id, prompt_id, provider, model, asked_at, day, text, citations, month)
      SELECT x.scan_id, ${site.id}, (${sql.val(prompts.map((p) => p.id))}::int[])[x.p], x.provider, 'm', x.at,
             (x.at AT TIME ZONE 'UTC')::date, (${sql.val(templates)}::text[])[1 + (x.g % 64)], ${citations}::jsonb,
             date_trunc('month', s.created_at AT TIME ZONE 'UTC')::date
        FROM (${shaped}) x JOIN scans s ON s.id = x.scan_id`.execute(ctx.db);
  }
  return site.id;
}

async function measure(ctx: AppContext, answers: number) {
  const siteId = await seed(ctx, answers);
  const row = await ctx.db
    .insertInto('reanalyses')
    .values({ siteId, reason: 'bench' })
    .returning('id')
    .executeTakeFirstOrThrow();
  global.gc?.();
  const baseRss = process.memoryUsage().rss;
  let peak = baseRss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const t0 = performance.now();
  const result = await runReanalysis(ctx, siteId, row.id);
  if (result === BUSY) throw new Error('the site is locked by another job');
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return {
    answers: result.answers,
    seconds: Math.round(seconds * 100) / 100,
    answersPerSec: Math.round(result.answers / seconds),
    peakRssMb: Math.round(peak / 2 ** 20),
    rssGrowthMb: Math.round((peak - baseRss) / 2 ** 20),
  };
}

async function main() {
  await ensureDatabase(DATABASE_URL);
  const config = loadConfig({ DATABASE_URL, LOG_LEVEL: 'warn', REDIS_PREFIX: `bench-${process.pid}` });
  const ctx = createContext(config, { role: 'cli', jobTable: loadJobTable, dbPoolSize: 4 });
  await migrateToLatest(ctx.db);
  try {
    const small = await measure(ctx, 20_000);
    const large = await measure(ctx, 100_000);
    console.log(
      JSON.stringify(
        {
          bench: 'reanalysis',
          date: new Date().toISOString().slice(0, 10),
          machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
          small,
          large,
          targets: {
            answersPerSecAtLeast: 5000,
            met: large.answersPerSec >= 5000,
            memoryFlat: large.peakRssMb < small.peakRssMb * 1.5,
          },
        },
        null,
        2,
      ),
    );
  } finally {
    await closeContext(ctx);
  }
}

runBench(main);
