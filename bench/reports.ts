/**
 * bench/reports: one site with about 1,000,000 stored answers (500 prompts x
 * 6 assistants x 333 daily scans, 2025-12-01 to 2026-10-29), generated with
 * SQL in the database `sightline_bench` together with their facts, then the
 * rollups built by rebuildRollups (the reanalysis path). Then every report
 * endpoint's domain function for week, month and quarter (start 2026-09-15:
 * a full week, month and quarter): p50 and p95 latency over 40 calls, and in
 * the same run the same numbers computed straight from answer_facts as the
 * baseline (7 calls each). The baseline's numbers are compared with the
 * report's, so the run also checks the rollups at scale.
 *
 * Then the public share page, GET /share/:token through the real HTTP server
 * (token look-up, the report, the HTML), for the same periods and the default.
 *
 * Targets: p95 under 50 ms for every report and the share page, 20x+ faster
 * than the baseline. The data set is kept between runs (found by its domain);
 * `--fresh` makes it again, `--rebuild` only rebuilds its rollups,
 * `--share-only` times the share page alone.
 *
 * `--scale` (issue 17) adds a second site with the same prompts and
 * assistants over the same eleven months, scanned every tenth day (102,000
 * answers), and times every report for both, interleaved, in one run: p95
 * at 100,000 and at 1,000,000 stored answers and their ratio (target: the
 * larger's report p95 at most 1.5x the smaller's).
 */
import os from 'node:os';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext, type AppContext } from '../src/context.ts';
import type { SiteRow } from '../src/db/schema.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { addMember } from '../src/domain/orgs/members.ts';
import { createOrg } from '../src/domain/orgs/orgs.ts';
import {
  periodEnd,
  periodStart,
  periodStartSql,
  periodWindow,
  previousPeriod,
  type Period,
} from '../src/domain/common/periods.ts';
import { competitorDetail } from '../src/domain/reports/competitor-detail.ts';
import { siteCompetitors } from '../src/domain/reports/competitors.ts';
import { emptyCounts, headline, percentOf, type SiteCounts } from '../src/domain/reports/base.ts';
import { siteReport } from '../src/domain/reports/report.ts';
import { siteSearches } from '../src/domain/reports/searches.ts';
import { siteSentiment } from '../src/domain/reports/site-sentiment.ts';
import { siteSources } from '../src/domain/reports/sources.ts';
import { siteTrends } from '../src/domain/reports/trends.ts';
import { rebuildRollups } from '../src/domain/facts/rollups.ts';
import { createSite } from '../src/domain/onboarding/new-site.ts';
import { ensureAnswerMonths } from '../src/domain/facts/partitions.ts';
import { createShare, revokeShare } from '../src/domain/shares/shares.ts';
import { allRoutes } from '../src/http/routes/index.ts';
import { createHttpServer } from '../src/http/server.ts';
import { createUser } from '../src/domain/orgs/users.ts';
import { runBench } from './lib.ts';
import { loadJobTable } from '../jobs/load-table.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench';
const DOMAIN = 'acme-reports-bench.com';
const FIRST_DAY = '2025-12-01';
const DAYS = 333;
const PROMPTS = 500;
const COMPETITORS = 10;
const CATEGORIES = 10;
const START = '2026-09-15';
const RUNS = 40;
const SHARE_ONLY = process.argv.includes('--share-only');
const SCALE = process.argv.includes('--scale');
/** The --scale run's smaller site: the same prompts and assistants over the same eleven months, scanned every tenth day (102,000 answers). */
const SMALL_EVERY = 10;
const SCALE_START = '2026-10-14';
/** More calls than the default run: the ratio of two p95s is noisier than either. */
const SCALE_RUNS = 100;
const BASELINE_RUNS = 7;
const PROVIDERS: [string, string][] = [
  ['openai', 'gpt-5-mini'],
  ['anthropic', 'claude-sonnet-4-6'],
  ['perplexity', 'sonar'],
  ['gemini', 'gemini-2.5-flash'],
  ['google-ai-overview', 'ai-overview'],
  ['google-ai-mode', 'ai-mode'],
];
const SITE_TYPES = ['ugc', 'review', 'news', 'reference', 'social', 'video', 'other'];

/** The period start the reports resolve START to. */
const startOf = (period: Period) => periodStart(period, START);
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

/** A data set: a site of its own (found by its domain) with a scan of every prompt and assistant each day (or every `every` days). */
interface DataSet {
  domain: string;
  firstDay: string;
  /** How many scans, one every `every` days (default 1). */
  days: number;
  every?: number;
}
const LARGE: DataSet = { domain: DOMAIN, firstDay: FIRST_DAY, days: DAYS };
const SMALL: DataSet = {
  domain: 'acme-reports-bench-100k.com',
  firstDay: FIRST_DAY,
  days: Math.ceil(DAYS / SMALL_EVERY),
  every: SMALL_EVERY,
};

async function createDataSet(ctx: AppContext, set: DataSet = LARGE): Promise<number> {
  const { domain, firstDay, days } = set;
  const every = set.every ?? 1;
  const org = await createOrg(ctx, { name: 'Bench reports', plan: 'enterprise' });
  const user = await createUser(ctx, { email: `bench-reports-${Date.now()}@example.com`, name: 'Bench' });
  await addMember(ctx, { orgId: org.id, userId: user.id, role: 'owner' });
  const site = await createSite(
    ctx,
    { orgId: org.id, userId: user.id },
    {
      name: 'Acme',
      url: domain,
      competitors: Array.from({ length: COMPETITORS }, (_, i) => ({ name: `Rival${i}`, domain: `rival${i}.com` })),
    },
  );
  const siteId = site.id;
  const compIds = site.competitors.map((c) => c.id);
  const categories = await ctx.db
    .insertInto('categories')
    .values(Array.from({ length: CATEGORIES }, (_, i) => ({ siteId, name: `Category ${i}` })))
    .returning('id')
    .execute();
  // 450 active and 50 paused prompts; every third prompt sits in a second category.
  const prompts = await ctx.db
    .insertInto('prompts')
    .values(
      Array.from({ length: PROMPTS }, (_, i) => ({
        siteId,
        text: `Which tool is best for use case number ${i}?`,
        status: i % 10 === 9 ? ('paused' as const) : ('active' as const),
      })),
    )
    .returning('id')
    .execute();
  const links = prompts.flatMap((p, i) => {
    const a = categories[i % CATEGORIES]?.id as number;
    const b = categories[(i * 7 + 3) % CATEGORIES]?.id as number;
    return i % 3 === 0 && a !== b
      ? [
          { promptId: p.id, categoryId: a },
          { promptId: p.id, categoryId: b },
        ]
      : [{ promptId: p.id, categoryId: a }];
  });
  await ctx.db.insertInto('promptCategories').values(links).execute();
  await sql`
    INSERT INTO scans (org_id, site_id, status, trigger, label, answers_total, answers_done, created_at, started_at, finished_at)
    SELECT ${org.id}, ${siteId}, 'done', 'import', 'day ' || d, ${PROMPTS * PROVIDERS.length}, ${PROMPTS * PROVIDERS.length},
           t, t, t + interval '20 minutes'
      FROM generate_series(0, ${days - 1}) d, LATERAL (SELECT (${firstDay}::date + d * ${every} + time '02:00') AT TIME ZONE 'UTC' AS t) x`.execute(
    ctx.db,
  );
  // Answers sit in their scan's month (docs/decisions.md): make those months' partitions, as a scan start would.
  await ensureAnswerMonths(
    ctx.db,
    new Date(`${firstDay}T00:00:00Z`),
    new Date(Date.parse(`${firstDay}T00:00:00Z`) + days * every * 86_400_000),
  );

  // Every answer's facts follow from (prompt n, provider j, day d) through two hashes, so answers and facts agree.
  for (let from = 0; from < days; from += 30) {
    const to = Math.min(days, from + 30) - 1;
    await sql`
      WITH p AS (SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS n FROM prompts WHERE site_id = ${siteId}),
      pr AS (SELECT provider, model, (ord - 1)::int AS j FROM unnest(${PROVIDERS.map((x) => x[0])}::text[], ${PROVIDERS.map((x) => x[1])}::text[]) WITH ORDINALITY AS t(provider, model, ord)),
      s AS (SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS d, date_trunc('month', created_at AT TIME ZONE 'UTC')::date AS month FROM scans WHERE site_id = ${siteId}),
      g0 AS (
        SELECT p.id AS prompt_id, p.n, pr.provider, pr.model, pr.j, s.id AS scan_id, s.d, s.month, (${firstDay}::date + s.d * ${every}) AS day,
               hashint8(p.n * 1000003 + pr.j * 7919 + s.d * 104729)::bigint & 2147483647 AS h1,
               hashint8(p.n * 999983 + pr.j * 6007 + s.d * 130363 + 17)::bigint & 2147483647 AS h2
          FROM p CROSS JOIN pr JOIN s ON s.d BETWEEN ${from} AND ${to}),
      g1 AS (
        SELECT *, h1 % 1000 AS r1, (h1 / 1000) % 1000 AS r2, (h1 / 1000000) % 1000 AS r3, h2 % 1000 AS r4, (h2 / 1000) % 1000 AS r5, (h2 / 1000000) % 1000 AS r6,
               (n + d / 7) % ${COMPETITORS} AS c1, (n * 3 + j) % ${COMPETITORS} AS c2
          FROM g0),
      g2 AS (
        SELECT *, r1 < 20 AS failed FROM g1),
      g3 AS (
        SELECT *, NOT failed AND r2 < 200 + (n % 7) * 100 + (d / 60) * 20 AS mentioned,
               CASE WHEN NOT failed AND r5 < 650 THEN (${compIds}::int[])[c1 + 1] END AS k1,
               CASE WHEN NOT failed AND r5 < 350 AND c2 <> c1 THEN (${compIds}::int[])[c2 + 1] END AS k2
          FROM g2),
      g AS (
        SELECT *, (mentioned AND r3 < 300) OR (NOT mentioned AND NOT failed AND r3 < 20) AS own_cited,
               array_remove(ARRAY[k1, k2], NULL) AS named,
               CASE WHEN k1 IS NOT NULL AND r6 < 250 THEN ARRAY[k1] ELSE '{}'::int[] END AS cited_comps
          FROM g3),
      ins AS (
        INSERT INTO answers (scan_id, site_id, prompt_id, provider, model, asked_at, day, text, citations, searches, error, month)
        SELECT scan_id, ${siteId}, prompt_id, provider, CASE WHEN j = 0 AND (n + d) % 10 = 0 THEN 'chatgpt-app' ELSE model END,
               (day + time '02:00' + j * interval '1 minute') AT TIME ZONE 'UTC', day,
               CASE WHEN failed THEN NULL ELSE 'Generated answer for use case ' || n || '.' END, '[]',
               CASE WHEN failed THEN '[]'::jsonb WHEN r4 % 2 = 0 THEN jsonb_build_array('best tool for use case ' || n)
                    ELSE jsonb_build_array('best tool for use case ' || n, 'use case ' || n || ' option ' || (d % 3)) END,
               CASE WHEN failed THEN 'timeout' END, month
          FROM g
        RETURNING id, prompt_id, provider, day, month)
      INSERT INTO answer_facts (answer_id, site_id, prompt_id, provider, day, verdict, mentioned, own_cited, brand_rank, brand_position, brands,
                                competitors_named, competitors_cited, citations, tone, tone_score, quote, suggestions, brand_key, month)
      SELECT ins.id, ${siteId}, g.prompt_id, g.provider, g.day,
             CASE WHEN g.failed THEN 'failed' WHEN g.own_cited THEN 'cited' WHEN g.mentioned THEN 'named' WHEN cardinality(g.named) > 0 THEN 'lost' ELSE 'missing' END,
             g.mentioned, g.own_cited, CASE WHEN g.mentioned THEN 1 + g.r4 % 4 END, CASE WHEN g.mentioned THEN 10 END, '[]',
             g.named, g.cited_comps,
             jsonb_path_query_array(jsonb_build_array(
               CASE WHEN g.own_cited THEN jsonb_build_object('url', 'https://${sql.raw(domain)}/page-' || g.n % 25, 'normalizedUrl', 'https://${sql.raw(domain)}/page-' || g.n % 25,
                                                            'title', 'Page', 'domain', ${domain}::text, 'siteType', 'own', 'competitorId', NULL) END,
               CASE WHEN cardinality(g.cited_comps) > 0 THEN jsonb_build_object('url', 'https://rival' || g.c1 || '.com/pricing', 'normalizedUrl', 'https://rival' || g.c1 || '.com/pricing',
                                                            'title', 'Pricing', 'domain', 'rival' || g.c1 || '.com', 'siteType', 'competitor', 'competitorId', g.cited_comps[1]) END,
               CASE WHEN NOT g.failed AND g.r1 % 5 <> 0 THEN jsonb_build_object('url', 'https://site' || g.r3 % 60 || '.com/p/' || g.n % 50, 'normalizedUrl', 'https://site' || g.r3 % 60 || '.com/p/' || g.n % 50,
                                                            'title', 'Article', 'domain', 'site' || g.r3 % 60 || '.com', 'siteType', (${SITE_TYPES}::text[])[1 + (g.r3 % 60) % 7], 'competitorId', NULL) END,
               CASE WHEN NOT g.failed AND g.r2 % 3 = 0 THEN jsonb_build_object('url', 'https://site' || (g.r3 + 17) % 60 || '.com/q', 'normalizedUrl', 'https://site' || (g.r3 + 17) % 60 || '.com/q',
                                                            'title', 'Other', 'domain', 'site' || (g.r3 + 17) % 60 || '.com', 'siteType', (${SITE_TYPES}::text[])[1 + ((g.r3 + 17) % 60) % 7], 'competitorId', NULL) END
             ), '$[*] ? (@ != null)'),
             CASE WHEN g.mentioned THEN (ARRAY['positive', 'neutral', 'negative'])[1 + g.r6 % 3] END,
             CASE WHEN g.mentioned THEN (ARRAY[0.6, 0, -0.4])[1 + g.r6 % 3] END,
             CASE WHEN g.mentioned THEN 'Acme is a good fit for this use case.' END,
             CASE WHEN NOT g.failed AND g.r4 < 80 THEN ARRAY['Zenith ' || g.r5 % 25] ELSE '{}' END,
             'bench', ins.month
        FROM ins JOIN g ON g.prompt_id = ins.prompt_id AND g.provider = ins.provider AND g.day = ins.day`.execute(
      ctx.db,
    );
    log(`answers and facts: days ${from}-${to} written`);
  }
  await rebuild(ctx, siteId);
  return siteId;
}

async function rebuild(ctx: AppContext, siteId: number): Promise<void> {
  log('rebuilding rollups (the reanalysis path)');
  const t0 = performance.now();
  await ctx.db.transaction().execute((trx) => rebuildRollups(trx, siteId));
  log(`rollups rebuilt in ${Math.round((performance.now() - t0) / 1000)} s`);
  await sql`VACUUM ANALYZE`.execute(ctx.db);
}

// ---------------------------------------------------------------------------
// Baseline: the same numbers read straight from answer_facts (and answers), no rollups.

const COUNTS = sql`count(*) AS answers, count(*) FILTER (WHERE f.verdict = 'failed') AS failed, count(*) FILTER (WHERE f.mentioned) AS mentioned,
  count(*) FILTER (WHERE f.own_cited) AS own_cited, coalesce(sum(f.brand_rank), 0) AS rank_sum, count(f.brand_rank) AS rank_count,
  coalesce(sum(cardinality(f.competitors_named)), 0) AS competitor_mentions, count(*) FILTER (WHERE f.tone = 'positive') AS positive,
  count(*) FILTER (WHERE f.tone = 'neutral') AS neutral, count(*) FILTER (WHERE f.tone = 'negative') AS negative, coalesce(sum(f.tone_score), 0) AS tone_sum`;
const VERDICT_STRENGTH = sql`max(CASE f.verdict WHEN 'failed' THEN 0 WHEN 'missing' THEN 1 WHEN 'lost' THEN 2 WHEN 'named' THEN 3 ELSE 4 END)`;
const num = (v: unknown) => Number(v ?? 0);
const bucket = (period: Period) => periodStartSql(period, sql.ref('f.day'));

async function baseCounts(
  ctx: AppContext,
  siteId: number,
  period: Period,
  first: string,
  last: string,
  provider = false,
) {
  const { rows } = await sql<SiteCounts & { start: string; provider: string }>`
    SELECT ${bucket(period)} AS start, ${provider ? sql`f.provider` : sql`''`} AS provider, ${COUNTS}
      FROM answer_facts f WHERE f.site_id = ${siteId} AND f.day BETWEEN ${first} AND ${periodEnd(period, last)} GROUP BY 1, 2`.execute(
    ctx.db,
  );
  return rows.map((r) => ({
    ...r,
    ...Object.fromEntries(
      Object.entries(r)
        .filter(([k]) => k !== 'start' && k !== 'provider')
        .map(([k, v]) => [k, num(v)]),
    ),
  })) as (SiteCounts & { start: string; provider: string })[];
}

async function basePromptVerdicts(ctx: AppContext, siteId: number, period: Period, first: string, last: string) {
  const { rows } = await sql<{ promptId: number; start: string; strength: number }>`
    SELECT f.prompt_id, ${bucket(period)} AS start, ${VERDICT_STRENGTH} AS strength
      FROM answer_facts f WHERE f.site_id = ${siteId} AND f.day BETWEEN ${first} AND ${periodEnd(period, last)} GROUP BY 1, 2`.execute(
    ctx.db,
  );
  return rows;
}

async function baselineReport(ctx: AppContext, site: SiteRow, period: Period, start: string) {
  const window = periodWindow(period, start);
  const prev = previousPeriod(period, start);
  const [counts, comps, verdicts, sources, models] = await Promise.all([
    baseCounts(ctx, site.id, period, window[0] as string, start, true),
    sql<{ id: number; start: string; n: number }>`
      SELECT c.id, ${bucket(period)} AS start, count(*) AS n FROM answer_facts f CROSS JOIN LATERAL unnest(f.competitors_named) c(id)
       WHERE f.site_id = ${site.id} AND f.day BETWEEN ${prev} AND ${periodEnd(period, start)} GROUP BY 1, 2`.execute(
      ctx.db,
    ),
    basePromptVerdicts(ctx, site.id, period, prev, start),
    sql<{ domain: string; count: number }>`
      SELECT domain, count(*) AS count FROM (
        SELECT DISTINCT f.answer_id, c->>'domain' AS domain, c->>'siteType' AS site_type FROM answer_facts f CROSS JOIN LATERAL jsonb_array_elements(f.citations) c
         WHERE f.site_id = ${site.id} AND f.day BETWEEN ${start} AND ${periodEnd(period, start)} AND c->>'domain' <> '') x
       GROUP BY domain, site_type ORDER BY count DESC, domain LIMIT 10`.execute(ctx.db),
    sql<{ provider: string; model: string; n: number }>`
      SELECT a.provider, a.model, count(*) AS n FROM answers a WHERE a.site_id = ${site.id} AND a.day BETWEEN ${start} AND ${periodEnd(period, start)} GROUP BY 1, 2`.execute(
      ctx.db,
    ),
  ]);
  const sum = (s: string) =>
    counts
      .filter((c) => c.start === s)
      .reduce(
        (acc, c) => ({
          ...acc,
          ...Object.fromEntries(
            Object.entries(c).map(([k, v]) => [
              k,
              typeof v === 'number' ? num((acc as Record<string, number>)[k]) + v : v,
            ]),
          ),
        }),
        {} as SiteCounts,
      );
  const byPrompt = new Map<number, Map<string, number>>();
  for (const v of verdicts) byPrompt.set(v.promptId, (byPrompt.get(v.promptId) ?? new Map()).set(v.start, v.strength));
  let won = 0;
  let lost = 0;
  for (const m of byPrompt.values()) {
    const a = m.get(prev);
    const b = m.get(start);
    if (a === undefined || b === undefined || a === 0 || b === 0) continue;
    if (a < 3 && b >= 3) won++;
    if (a >= 3 && b < 3) lost++;
  }
  const empty = {
    answers: 0,
    failed: 0,
    mentioned: 0,
    ownCited: 0,
    rankSum: 0,
    rankCount: 0,
    competitorMentions: 0,
    positive: 0,
    neutral: 0,
    negative: 0,
    toneSum: 0,
  };
  return {
    current: headline({ ...empty, ...sum(start) }),
    previous: headline({ ...empty, ...sum(prev) }),
    competitorMentions: comps.rows
      .filter((r) => r.start === start)
      .map((r) => [r.id, num(r.n)])
      .sort((x, y) => (x[0] as number) - (y[0] as number)),
    changes: { won, lost },
    topSources: sources.rows.map((r) => [r.domain, num(r.count)]),
    series: window.map((s) => headline({ ...empty, ...sum(s) }).visibility),
    answers: models.rows.reduce((n, r) => n + num(r.n), 0),
  };
}

async function baselineTrends(ctx: AppContext, site: SiteRow, period: Period, start: string) {
  const window = periodWindow(period, start);
  const [counts, verdicts, categories] = await Promise.all([
    baseCounts(ctx, site.id, period, window[0] as string, start),
    sql<{ promptId: number; start: string; strength: number }>`
      SELECT f.prompt_id, ${bucket(period)} AS start, ${VERDICT_STRENGTH} AS strength
        FROM answer_facts f JOIN prompts p ON p.id = f.prompt_id AND p.status = 'active'
       WHERE f.site_id = ${site.id} AND f.day BETWEEN ${window[0]} AND ${periodEnd(period, start)} GROUP BY 1, 2`.execute(
      ctx.db,
    ),
    sql<{ categoryId: number; start: string; answered: number; mentioned: number }>`
      SELECT pc.category_id, ${bucket(period)} AS start, count(*) FILTER (WHERE f.verdict <> 'failed') AS answered, count(*) FILTER (WHERE f.mentioned) AS mentioned
        FROM answer_facts f JOIN prompt_categories pc ON pc.prompt_id = f.prompt_id
       WHERE f.site_id = ${site.id} AND f.day BETWEEN ${window[0]} AND ${periodEnd(period, start)} GROUP BY 1, 2`.execute(
      ctx.db,
    ),
  ]);
  return {
    shares: window.map((s) => {
      const c = counts.find((x) => x.start === s);
      return c ? headline(c).visibility : null;
    }),
    verdicts: verdicts.rows.length,
    namedCells: verdicts.rows.filter((v) => v.strength >= 3).length,
    categoryMentions: categories.rows.reduce((n, r) => n + num(r.mentioned), 0),
  };
}

async function baselineSentiment(ctx: AppContext, site: SiteRow, period: Period, start: string) {
  // Current and previous period per assistant, as the report shows both.
  const counts = await baseCounts(ctx, site.id, period, previousPeriod(period, start), start, true);
  return counts
    .filter((c) => c.start === start)
    .map((c) => [c.provider, c.positive, c.neutral, c.negative])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

async function baselineSentimentList(ctx: AppContext, site: SiteRow, period: Period, start: string) {
  const [tones, list, total] = await Promise.all([
    baselineSentiment(ctx, site, period, start),
    sql`SELECT f.answer_id, f.prompt_id, p.text, f.provider, a.model, a.asked_at, f.tone, f.tone_score, f.quote, f.brand_rank
          FROM answer_facts f JOIN answers a ON a.id = f.answer_id JOIN prompts p ON p.id = f.prompt_id
         WHERE f.site_id = ${site.id} AND f.mentioned AND f.day BETWEEN ${start} AND ${periodEnd(period, start)}
         ORDER BY f.day DESC, f.answer_id DESC LIMIT 50`.execute(ctx.db),
    sql<{
      n: number;
    }>`SELECT count(*) AS n FROM answer_facts f WHERE f.site_id = ${site.id} AND f.mentioned AND f.day BETWEEN ${start} AND ${periodEnd(period, start)}`.execute(
      ctx.db,
    ),
  ]);
  return { tones, answers: list.rows.length, total: num(total.rows[0]?.n) };
}

async function baselineSources(ctx: AppContext, site: SiteRow, period: Period, start: string) {
  const end = periodEnd(period, start);
  const [domains, own, types, ownLinks, answered] = await Promise.all([
    sql<{ domain: string; answers: number; namesBrand: number }>`
      SELECT domain, count(*) AS answers, count(*) FILTER (WHERE mentioned) AS names_brand FROM (
        SELECT DISTINCT f.answer_id, f.mentioned, c->>'domain' AS domain, c->>'siteType' AS site_type FROM answer_facts f CROSS JOIN LATERAL jsonb_array_elements(f.citations) c
         WHERE f.site_id = ${site.id} AND f.day BETWEEN ${start} AND ${end} AND c->>'domain' <> '') x
       GROUP BY domain, site_type ORDER BY answers DESC, domain, site_type LIMIT 50`.execute(ctx.db),
    sql<{ url: string; answers: number; prompts: number }>`
      SELECT url, count(DISTINCT answer_id) AS answers, count(DISTINCT prompt_id) AS prompts FROM (
        SELECT f.answer_id, f.prompt_id, c->>'normalizedUrl' AS url FROM answer_facts f CROSS JOIN LATERAL jsonb_array_elements(f.citations) c
         WHERE f.site_id = ${site.id} AND f.day BETWEEN ${start} AND ${end} AND c->>'siteType' = 'own') x
       GROUP BY url ORDER BY answers DESC, url LIMIT 200`.execute(ctx.db),
    sql`SELECT c->>'siteType' AS site_type, count(*) AS citations, count(DISTINCT c->>'domain') AS domains FROM answer_facts f CROSS JOIN LATERAL jsonb_array_elements(f.citations) c
         WHERE f.site_id = ${site.id} AND f.day BETWEEN ${start} AND ${end} AND c->>'domain' <> '' GROUP BY 1`.execute(
      ctx.db,
    ),
    sql`SELECT url, provider, count(*) AS n FROM (
          SELECT DISTINCT f.answer_id, f.provider, c->>'normalizedUrl' AS url FROM answer_facts f CROSS JOIN LATERAL jsonb_array_elements(f.citations) c
           WHERE f.site_id = ${site.id} AND f.day BETWEEN ${start} AND ${end} AND c->>'siteType' = 'own') x GROUP BY 1, 2`.execute(
      ctx.db,
    ),
    baseCounts(ctx, site.id, period, start, start),
  ]);

  const typeRows = types.rows as { siteType: string; domains: number; citations: number }[];
  return {
    answered: answered.reduce((n, c) => n + c.answers - c.failed, 0),
    siteTypes: typeRows
      .map((t) => [t.siteType, num(t.domains), num(t.citations)])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ownLinks: (ownLinks.rows as { n: number }[]).reduce((n, r) => n + num(r.n), 0),
    sources: domains.rows.map((r) => [r.domain, num(r.answers), percentOf(num(r.namesBrand), num(r.answers))]),
    ownPages: own.rows.map((r) => [r.url, num(r.answers), num(r.prompts)]),
  };
}

/** Per competitor, period start and assistant, with head-to-head counts, from facts. */
function baseCompetitorRows(
  ctx: AppContext,
  siteId: number,
  period: Period,
  first: string,
  last: string,
  competitorId?: number,
) {
  return sql<{
    id: number;
    start: string;
    provider: string;
    mentioned: number;
    cited: number;
    both: number;
    brandAhead: number;
  }>`
    SELECT c.id, ${bucket(period)} AS start, f.provider,
           count(*) FILTER (WHERE c.id = ANY (f.competitors_named)) AS mentioned, count(*) FILTER (WHERE c.id = ANY (f.competitors_cited)) AS cited,
           count(*) FILTER (WHERE f.mentioned AND c.id = ANY (f.competitors_named)) AS both,
           count(*) FILTER (WHERE f.mentioned AND f.brand_rank <= array_position(f.competitors_named, c.id)) AS brand_ahead
      FROM answer_facts f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.competitors_named || f.competitors_cited) AS id) c
     WHERE f.site_id = ${siteId} AND f.day BETWEEN ${first} AND ${periodEnd(period, last)} ${competitorId === undefined ? sql`` : sql`AND c.id = ${competitorId}`}
     GROUP BY 1, 2, 3`.execute(ctx.db);
}

async function baselineCompetitors(ctx: AppContext, site: SiteRow, period: Period, start: string) {
  const end = periodEnd(period, start);
  const [counts, comps, suggestions] = await Promise.all([
    baseCounts(ctx, site.id, period, previousPeriod(period, start), start, true),
    baseCompetitorRows(ctx, site.id, period, previousPeriod(period, start), start),
    sql<{ name: string; n: number }>`
      SELECT s.name, count(*) AS n FROM answer_facts f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.suggestions) AS name) s
       WHERE f.site_id = ${site.id} AND f.day BETWEEN ${start} AND ${end} GROUP BY 1 HAVING count(*) >= 2 ORDER BY 2 DESC, 1 LIMIT 50`.execute(
      ctx.db,
    ),
  ]);
  const totals = new Map<number, number[]>();
  for (const r of comps.rows.filter((x) => x.start === start)) {
    const t = totals.get(r.id) ?? [0, 0, 0, 0];
    [num(r.mentioned), num(r.cited), num(r.both), num(r.brandAhead)].forEach((v, i) => (t[i] = (t[i] ?? 0) + v));
    totals.set(r.id, t);
  }
  return {
    brandMentioned: counts.filter((c) => c.start === start).reduce((n, c) => n + c.mentioned, 0),
    competitors: [...totals.entries()].sort((a, b) => a[0] - b[0]).map(([id, t]) => [id, ...t]),
    suggestions: suggestions.rows.map((r) => [r.name, num(r.n)]),
  };
}

async function baselineCompetitorDetail(
  ctx: AppContext,
  site: SiteRow,
  competitorId: number,
  period: Period,
  start: string,
) {
  const end = periodEnd(period, start);
  const [counts, comps, split, categories, pages] = await Promise.all([
    baseCounts(ctx, site.id, period, previousPeriod(period, start), start, true),
    baseCompetitorRows(ctx, site.id, period, previousPeriod(period, start), start, competitorId),
    sql<{ both: number; onlyBrand: number; onlyCompetitor: number }>`
      SELECT count(*) FILTER (WHERE b AND c) AS both, count(*) FILTER (WHERE b AND NOT c) AS only_brand, count(*) FILTER (WHERE c AND NOT b) AS only_competitor FROM (
        SELECT f.prompt_id, bool_or(f.mentioned) AS b, bool_or(${competitorId} = ANY (f.competitors_named)) AS c FROM answer_facts f
         WHERE f.site_id = ${site.id} AND f.day BETWEEN ${start} AND ${end} GROUP BY f.prompt_id) x`.execute(ctx.db),
    sql<{ categoryId: number; brand: number; competitor: number }>`
      SELECT pc.category_id, count(*) FILTER (WHERE f.mentioned) AS brand, count(*) FILTER (WHERE ${competitorId} = ANY (f.competitors_named)) AS competitor
        FROM answer_facts f JOIN prompt_categories pc ON pc.prompt_id = f.prompt_id
       WHERE f.site_id = ${site.id} AND f.day BETWEEN ${start} AND ${end} GROUP BY 1 ORDER BY 1`.execute(ctx.db),
    sql<{ url: string; n: number }>`
      SELECT c->>'normalizedUrl' AS url, count(DISTINCT f.answer_id) AS n FROM answer_facts f CROSS JOIN LATERAL jsonb_array_elements(f.citations) c
       WHERE f.site_id = ${site.id} AND f.day BETWEEN ${start} AND ${end} AND (c->>'competitorId')::int = ${competitorId} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 50`.execute(
      ctx.db,
    ),
  ]);
  const s = split.rows[0];
  const now = comps.rows.filter((r) => r.start === start);
  return {
    paired: [
      counts.filter((c) => c.start === start).reduce((n, c) => n + c.mentioned, 0),
      now.reduce((n, r) => n + num(r.mentioned), 0),
      now.reduce((n, r) => n + num(r.both), 0),
      now.reduce((n, r) => n + num(r.brandAhead), 0),
    ],
    prompts: { both: num(s?.both), onlyBrand: num(s?.onlyBrand), onlyCompetitor: num(s?.onlyCompetitor) },
    categories: categories.rows.map((r) => [num(r.brand), num(r.competitor)]),
    pages: pages.rows.map((r) => [r.url, num(r.n)]),
  };
}

async function baselineSearches(ctx: AppContext, site: SiteRow, period: Period, start: string) {
  const { rows } = await sql<{ query: string; n: number }>`
    SELECT query, count(*) AS n FROM (
      SELECT DISTINCT a.id, left(translate(btrim(regexp_replace(q, ' +', ' ', 'g'), ' '), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), 500) AS query
        FROM answers a JOIN prompts p ON p.id = a.prompt_id AND p.status = 'active' CROSS JOIN LATERAL jsonb_array_elements_text(a.searches) q
       WHERE a.site_id = ${site.id} AND a.day BETWEEN ${start} AND ${periodEnd(period, start)}) x
     WHERE query <> '' GROUP BY query ORDER BY n DESC, query LIMIT 50`.execute(ctx.db);
  return rows.map((r) => [r.query, num(r.n)]);
}

// ---------------------------------------------------------------------------

async function timeIt<T>(fn: () => Promise<T>, runs: number): Promise<{ p50: number; p95: number; result: T }> {
  let result = await fn();
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    result = await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] as number;
  return { p50: Math.round(at(0.5) * 10) / 10, p95: Math.round(at(0.95) * 10) / 10, result };
}

/** The headline fields the baseline computes; the report adds each share's interval beside them (timed, not compared). */
const headlineOnly = (h: Record<string, unknown> | undefined) =>
  h && Object.fromEntries(Object.keys(headline(emptyCounts())).map((k) => [k, h[k]]));

function same(label: string, a: unknown, b: unknown): boolean {
  const ok = JSON.stringify(a) === JSON.stringify(b);
  if (!ok)
    log(
      `MISMATCH ${label}:\n  rollups  ${JSON.stringify(a).slice(0, 400)}\n  baseline ${JSON.stringify(b).slice(0, 400)}`,
    );
  return ok;
}

/** GET /share/:token over HTTP for each period holding START and for the default (latest) period: p50 and p95 over RUNS calls. */
async function timeSharePage(ctx: AppContext, site: SiteRow) {
  const owner = await ctx.db
    .selectFrom('memberships')
    .select('userId')
    .where('orgId', '=', site.orgId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  const created = await createShare(ctx, site, owner.userId, { label: 'bench' });
  const token = created.url.split('/share/')[1] as string;
  const http = createHttpServer(ctx, allRoutes);
  const base = await http.listen(0, '127.0.0.1');
  try {
    const out: Record<string, unknown>[] = [];
    for (const [period, start] of [
      ['week', START],
      ['month', START],
      ['quarter', START],
      ['week', undefined],
    ] as [Period, string | undefined][]) {
      const url = `${base}/share/${token}?period=${period}${start ? `&start=${start}` : ''}`;
      const t = await timeIt(async () => {
        const res = await fetch(url);
        const body = await res.text();
        if (res.status !== 200 || !body.includes('data-chart="visibility"'))
          throw new Error(`share page answered ${res.status}`);
        return body.length;
      }, RUNS);
      out.push({ endpoint: 'share page', period, start: start ?? 'latest', p50: t.p50, p95: t.p95, bytes: t.result });
      log(
        `${'share page'.padEnd(20)} ${period.padEnd(8)} ${(start ?? 'latest').padEnd(10)} p50 ${String(t.p50).padStart(6)} ms  p95 ${String(t.p95).padStart(6)} ms  ${t.result} bytes`,
      );
    }
    return out;
  } finally {
    await http.close();
    await revokeShare(ctx, site, created.share.id);
  }
}

const storedAnswers = async (ctx: AppContext, siteId: number) =>
  Number(
    (
      await ctx.db
        .selectFrom('answers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('siteId', '=', siteId)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** The data set's site: kept from an earlier run when whole, made again when not (or with --fresh); rollups rebuilt with --rebuild. */
async function ensureDataSet(ctx: AppContext, set: DataSet): Promise<SiteRow> {
  let site = await ctx.db
    .selectFrom('sites')
    .selectAll()
    .where('domain', '=', set.domain)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  const stored = site ? await storedAnswers(ctx, site.id) : 0;
  if (!site || stored !== set.days * PROMPTS * PROVIDERS.length || process.argv.includes('--fresh')) {
    if (site) await ctx.db.deleteFrom('orgs').where('id', '=', site.orgId).execute();
    log(`generating the data set ${set.domain}`);
    const id = await createDataSet(ctx, set);
    site = await ctx.db.selectFrom('sites').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  } else if (
    process.argv.includes('--rebuild') ||
    !(await ctx.db.selectFrom('rollupModelPeriod').select('siteId').where('siteId', '=', site.id).executeTakeFirst())
  ) {
    // Kept answers and facts, rollups missing or asked for again (after a change of rollup tables).
    await rebuild(ctx, site.id);
  }
  return site;
}

/**
 * `--scale` (issue 17): the same reports for a site holding about 100,000
 * answers (SMALL: the same prompts, assistants and months, a scan every
 * tenth day) and for the 999,000-answer site, in one run, calls interleaved
 * so both see the same machine: p95 of each and the larger's over the
 * smaller's. Both sites have data in every period the reports read, so what
 * differs is the number of answers stored (and read through every month
 * partition), not the number of periods shown.
 */
async function scaleRun(ctx: AppContext, large: SiteRow): Promise<void> {
  const small = await ensureDataSet(ctx, SMALL);
  const sites = [small, large];
  const answers = [await storedAnswers(ctx, small.id), await storedAnswers(ctx, large.id)];
  const competitor = async (site: SiteRow) =>
    (
      await ctx.db
        .selectFrom('competitors')
        .select('id')
        .where('siteId', '=', site.id)
        .orderBy('id')
        .executeTakeFirstOrThrow()
    ).id;
  const competitorIds = [await competitor(small), await competitor(large)];
  const rows: {
    endpoint: string;
    period: Period;
    p95Small: number;
    p95Large: number;
    p50Small: number;
    p50Large: number;
    ratio: number;
  }[] = [];
  for (const period of ['week', 'month', 'quarter'] as Period[]) {
    const q = { period, start: SCALE_START };
    const page = { ...q, page: 1, perPage: 50 };
    const cases: [string, (site: SiteRow, i: number) => Promise<unknown>][] = [
      ['report', (s) => siteReport(ctx, s, q)],
      ['trends', (s) => siteTrends(ctx, s, q)],
      ['sentiment', (s) => siteSentiment(ctx, s, { ...page, answers: false })],
      ['sentiment answers=1', (s) => siteSentiment(ctx, s, { ...page, answers: true })],
      ['sources', (s) => siteSources(ctx, s, page)],
      ['competitors', (s) => siteCompetitors(ctx, s, q)],
      ['competitor detail', (s, i) => competitorDetail(ctx, s, competitorIds[i] as number, q)],
      ['searches', (s) => siteSearches(ctx, s, page)],
    ];
    for (const [endpoint, fn] of cases) {
      const times: number[][] = [[], []];
      for (let i = 0; i < 2; i++) for (const [k, site] of sites.entries()) await fn(site, k);
      for (let run = 0; run < SCALE_RUNS; run++) {
        // Alternate which site goes first, so neither always follows the other's cache misses.
        for (const k of run % 2 === 0 ? [0, 1] : [1, 0]) {
          const t0 = performance.now();
          await fn(sites[k] as SiteRow, k);
          times[k]?.push(performance.now() - t0);
        }
      }
      const at = (list: number[], q95: number) => {
        const sorted = [...list].sort((a, b) => a - b);
        return (
          Math.round((sorted[Math.min(sorted.length - 1, Math.ceil(q95 * sorted.length) - 1)] as number) * 10) / 10
        );
      };
      const row = {
        endpoint,
        period,
        p50Small: at(times[0] as number[], 0.5),
        p95Small: at(times[0] as number[], 0.95),
        p50Large: at(times[1] as number[], 0.5),
        p95Large: at(times[1] as number[], 0.95),
        ratio: 0,
      };
      row.ratio = Math.round((row.p95Large / row.p95Small) * 100) / 100;
      rows.push(row);
      log(
        `${endpoint.padEnd(20)} ${period.padEnd(8)} p95 ${String(row.p95Small).padStart(6)} ms at ${answers[0]}  ${String(row.p95Large).padStart(6)} ms at ${answers[1]}  x${row.ratio}`,
      );
    }
  }
  const reportRatio = Math.max(...rows.filter((r) => r.endpoint === 'report').map((r) => r.ratio));
  const worst = rows.reduce((w, r) => (r.ratio > w.ratio ? r : w));
  console.log(
    JSON.stringify(
      {
        bench: 'reports --scale',
        date: new Date().toISOString().slice(0, 10),
        machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
        answers: { small: answers[0], large: answers[1] },
        start: SCALE_START,
        results: rows,
        targets: {
          largeOverSmallAtMost: 1.5,
          reportRatio,
          worstRatio: { endpoint: worst.endpoint, period: worst.period, ratio: worst.ratio },
          met: reportRatio <= 1.5,
        },
      },
      null,
      2,
    ),
  );
}

async function main() {
  await ensureDatabase(DATABASE_URL);
  const config = loadConfig({ DATABASE_URL, LOG_LEVEL: 'warn', REDIS_PREFIX: `bench-${process.pid}` });
  const ctx = createContext(config, { role: 'cli', jobTable: loadJobTable, dbPoolSize: 10 });
  await migrateToLatest(ctx.db);
  try {
    const site = await ensureDataSet(ctx, LARGE);
    if (SCALE) {
      await scaleRun(ctx, site);
      return;
    }
    const answers = await storedAnswers(ctx, site.id);
    const competitorId = (
      await ctx.db
        .selectFrom('competitors')
        .select('id')
        .where('siteId', '=', site.id)
        .orderBy('id')
        .executeTakeFirstOrThrow()
    ).id;
    const s = site;
    const rows: Record<string, unknown>[] = [];
    let allSame = true;
    for (const period of (SHARE_ONLY ? [] : ['week', 'month', 'quarter']) as Period[]) {
      const q = { period, start: START };
      const page = { ...q, page: 1, perPage: 50 };
      const cases: [string, () => Promise<unknown>, () => Promise<unknown>, (r: never, b: never) => boolean][] = [
        [
          'report',
          () => siteReport(ctx, s, q),
          () => baselineReport(ctx, s, period, startOf(period)),
          (r: Awaited<ReturnType<typeof siteReport>>, b: Awaited<ReturnType<typeof baselineReport>>) =>
            same(`report ${period} current`, headlineOnly(r.report?.current), b.current) &&
            same(`report ${period} previous`, headlineOnly(r.report?.previous), b.previous) &&
            same(
              `report ${period} competitors`,
              r.report?.ranking
                .filter((x) => x.kind === 'competitor')
                .map((x) => [x.competitorId, x.mentioned])
                .filter((x) => x[1] !== 0)
                .sort((x, y) => (x[0] as number) - (y[0] as number)),
              b.competitorMentions,
            ) &&
            same(
              `report ${period} changes`,
              { won: r.report?.changes.won.length, lost: r.report?.changes.lost.length },
              b.changes,
            ) &&
            same(
              `report ${period} sources`,
              r.report?.topSources.map((x) => [x.domain, x.count]),
              b.topSources,
            ) &&
            same(
              `report ${period} series`,
              r.report?.series.map((x) => x.visibility),
              b.series,
            ) &&
            same(
              `report ${period} scope`,
              r.report?.scope?.assistants.reduce((n, a) => n + a.answers, 0),
              b.answers,
            ),
        ],
        [
          'trends',
          () => siteTrends(ctx, s, q),
          () => baselineTrends(ctx, s, period, startOf(period)),
          (r: Awaited<ReturnType<typeof siteTrends>>, b: Awaited<ReturnType<typeof baselineTrends>>) =>
            same(
              `trends ${period} shares`,
              r.shares.map((x) => x.visibility),
              b.shares,
            ) &&
            same(
              `trends ${period} verdicts`,
              r.prompts.flatMap((p) => p.verdicts).filter((v) => v !== null).length,
              b.verdicts,
            ) &&
            same(
              `trends ${period} named`,
              r.prompts.flatMap((p) => p.verdicts).filter((v) => v === 'named' || v === 'cited').length,
              b.namedCells,
            ) &&
            same(
              `trends ${period} categories`,
              r.categories.reduce((n, c) => n + c.shares.reduce((m, x) => m + x.mentioned, 0), 0),
              b.categoryMentions,
            ),
        ],
        [
          'sentiment',
          () => siteSentiment(ctx, s, { ...page, answers: false }),
          () => baselineSentiment(ctx, s, period, startOf(period)),
          (r: Awaited<ReturnType<typeof siteSentiment>>, b: Awaited<ReturnType<typeof baselineSentiment>>) =>
            same(
              `sentiment ${period}`,
              [...r.providers]
                .sort((x, y) => x.provider.localeCompare(y.provider))
                .map((x) => [x.provider, x.positive, x.neutral, x.negative]),
              b,
            ),
        ],
        [
          'sentiment answers=1',
          () => siteSentiment(ctx, s, { ...page, answers: true }),
          () => baselineSentimentList(ctx, s, period, startOf(period)),
          (r: Awaited<ReturnType<typeof siteSentiment>>, b: Awaited<ReturnType<typeof baselineSentimentList>>) =>
            same(
              `sentiment list ${period}`,
              ['answers' in r ? r.answers.length : 0, 'total' in r ? r.total : 0],
              [b.answers, b.total],
            ),
        ],
        [
          'sources',
          () => siteSources(ctx, s, page),
          () => baselineSources(ctx, s, period, startOf(period)),
          (r: Awaited<ReturnType<typeof siteSources>>, b: Awaited<ReturnType<typeof baselineSources>>) =>
            same(
              `sources ${period}`,
              r.sources.map((x) => [x.domain, x.count, x.namesBrand]),
              b.sources,
            ) &&
            same(
              `own pages ${period}`,
              r.ownPages.map((x) => [x.url, x.count, x.promptCount]),
              b.ownPages,
            ) &&
            same(
              `own page links ${period}`,
              r.ownPages.reduce((n, x) => n + x.providers.reduce((m, y) => m + y.count, 0), 0),
              b.ownLinks,
            ) &&
            same(
              `site types ${period}`,
              [...r.siteTypes]
                .sort((x, y) => x.siteType.localeCompare(y.siteType))
                .map((t) => [t.siteType, t.domains, t.citations]),
              b.siteTypes,
            ) &&
            same(`answered ${period}`, r.answered, b.answered),
        ],
        [
          'competitors',
          () => siteCompetitors(ctx, s, q),
          () => baselineCompetitors(ctx, s, period, startOf(period)),
          (r: Awaited<ReturnType<typeof siteCompetitors>>, b: Awaited<ReturnType<typeof baselineCompetitors>>) =>
            same(
              `competitors ${period}`,
              [...r.competitors]
                .sort((x, y) => x.id - y.id)
                .map((x) => [x.id, x.mentioned, x.cited, x.headToHead.both, x.headToHead.brandAhead]),
              b.competitors,
            ) &&
            same(
              `suggestions ${period}`,
              r.suggestions.map((x) => [x.name, x.count]),
              b.suggestions,
            ) &&
            same(`brand ${period}`, r.brand.mentioned, b.brandMentioned),
        ],
        [
          'competitor detail',
          () => competitorDetail(ctx, s, competitorId, q),
          () => baselineCompetitorDetail(ctx, s, competitorId, period, startOf(period)),
          (r: Awaited<ReturnType<typeof competitorDetail>>, b: Awaited<ReturnType<typeof baselineCompetitorDetail>>) =>
            same(
              `detail ${period} paired`,
              [r.current.brand.mentioned, r.current.competitor.mentioned, r.current.both, r.current.brandAhead],
              b.paired,
            ) &&
            same(`detail ${period} prompts`, r.prompts.counts, b.prompts) &&
            same(
              `detail ${period} categories`,
              r.categories.map((c) => [c.brand.mentioned, c.competitor.mentioned]),
              b.categories,
            ) &&
            same(
              `detail ${period} pages`,
              r.pages.map((p) => [p.url, p.count]),
              b.pages,
            ),
        ],
        [
          'searches',
          () => siteSearches(ctx, s, page),
          () => baselineSearches(ctx, s, period, startOf(period)),
          (r: Awaited<ReturnType<typeof siteSearches>>, b: Awaited<ReturnType<typeof baselineSearches>>) =>
            same(
              `searches ${period}`,
              r.searches.map((x) => [x.query, x.count]),
              b,
            ),
        ],
      ];
      for (const [name, fast, slow, check] of cases) {
        const f = await timeIt(fast, RUNS);
        const b = await timeIt(slow, BASELINE_RUNS);
        const ok = check(f.result as never, b.result as never);
        allSame &&= ok;
        rows.push({
          endpoint: name,
          period,
          p50: f.p50,
          p95: f.p95,
          baselineP50: b.p50,
          baselineP95: b.p95,
          speedup: Math.round((b.p50 / f.p50) * 10) / 10,
          sameNumbers: ok,
        });
        log(
          `${name.padEnd(20)} ${period.padEnd(8)} p50 ${String(f.p50).padStart(6)} ms  p95 ${String(f.p95).padStart(6)} ms   baseline p50 ${String(b.p50).padStart(8)} ms  x${Math.round((b.p50 / f.p50) * 10) / 10}${ok ? '' : '  NUMBERS DIFFER'}`,
        );
      }
    }
    const sharePage = await timeSharePage(ctx, s);
    const shareWorstP95 = Math.max(...sharePage.map((r) => r.p95 as number));
    const worstP95 = rows.length ? Math.max(...rows.map((r) => r.p95 as number)) : null;
    const minSpeedup = rows.length ? Math.min(...rows.map((r) => r.speedup as number)) : null;
    console.log(
      JSON.stringify(
        {
          bench: 'reports',
          date: new Date().toISOString().slice(0, 10),
          machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load ${os
            .loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')}`,
          answers,
          start: START,
          results: rows,
          sharePage,
          targets: {
            p95UnderMs: 50,
            worstP95,
            speedupAtLeast: 20,
            minSpeedup,
            sharePageWorstP95: shareWorstP95,
            met:
              (worstP95 === null || worstP95 < 50) && (minSpeedup === null || minSpeedup >= 20) && shareWorstP95 < 50,
            baselineNumbersEqual: allSame,
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
