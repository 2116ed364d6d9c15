import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { AnswerFacts } from '../analysis/index.ts';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { addToReportRollups, rebuildReportRollups, type RebuildScope } from './reports/rollups.ts';

type Executor = Db | Transaction<Database>;

/**
 * The site's daily rollup, per (site, day, provider), and the report rollups. Added to in
 * the transaction that stores each answer's facts, and rebuilt from
 * answer_facts by reanalysis. `rebuildRollups` is the definition; the
 * incremental path must agree with it (tested).
 */
const COUNTERS = ['answers', 'failed', 'mentioned', 'ownCited', 'rankSum', 'rankCount', 'competitorMentions', 'positive', 'neutral', 'negative', 'toneSum'] as const;
type Counter = (typeof COUNTERS)[number];

export interface RolledFacts {
  siteId: number;
  day: string;
  provider: string;
  facts: AnswerFacts;
  /** The rest feeds the report rollups (src/domain/reports/rollups.ts). */
  promptId: number;
  answerId: number;
  askedAt: Date;
  model: string;
  searches: string[];
}

export async function addToRollups(db: Executor, items: RolledFacts[]): Promise<void> {
  const site = new Map<string, Database['rollupSiteDay']>();
  for (const { siteId, day, provider, facts: f } of items) {
    const key = `${siteId}|${day}|${provider}`;
    const row = site.get(key) ?? {
      siteId,
      day,
      provider,
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
    row.answers++;
    if (f.verdict === 'failed') row.failed++;
    if (f.mentioned) row.mentioned++;
    if (f.ownCited) row.ownCited++;
    if (f.brandRank !== null) {
      row.rankSum += f.brandRank;
      row.rankCount++;
    }
    row.competitorMentions += f.competitorsNamed.length;
    if (f.tone) row[f.tone]++;
    row.toneSum += f.toneScore ?? 0;
    site.set(key, row);
  }
  if (site.size) {
    await db
      .insertInto('rollupSiteDay')
      // In key order, like the report rollups: two batches adding to the same rows wait instead of deadlocking.
      .values([...site.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, row]) => row))
      .onConflict((oc) =>
        oc.columns(['siteId', 'day', 'provider']).doUpdateSet(
          Object.fromEntries(COUNTERS.map((c) => [c, sql<number>`${sql.ref(`rollupSiteDay.${c}`)} + ${sql.ref(`excluded.${c}`)}`])) as Record<Counter, RawBuilder<number>>,
        ),
      )
      .execute();
  }
  await addToReportRollups(db, items);
}

/** Recomputes a site's rollups from its facts, set-based, in the caller's transaction (`scope`: see RebuildScope). */
export async function rebuildRollups(trx: Transaction<Database>, siteId: number, scope: RebuildScope = 'all'): Promise<void> {
  await trx.deleteFrom('rollupSiteDay').where('siteId', '=', siteId).execute();
  await sql`
    INSERT INTO rollup_site_day (site_id, day, provider, answers, failed, mentioned, own_cited, rank_sum, rank_count,
                                 competitor_mentions, positive, neutral, negative, tone_sum)
    SELECT site_id, day, provider, count(*), count(*) FILTER (WHERE verdict = 'failed'), count(*) FILTER (WHERE mentioned),
           count(*) FILTER (WHERE own_cited), coalesce(sum(brand_rank), 0), count(brand_rank),
           coalesce(sum(cardinality(competitors_named)), 0),
           count(*) FILTER (WHERE tone = 'positive'), count(*) FILTER (WHERE tone = 'neutral'),
           count(*) FILTER (WHERE tone = 'negative'), coalesce(sum(tone_score), 0)
      FROM answer_facts WHERE site_id = ${siteId}
     GROUP BY site_id, day, provider`.execute(trx);
  await rebuildReportRollups(trx, siteId, scope);
}
