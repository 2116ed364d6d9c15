import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { AnswerFacts } from '../../analysis/index.ts';
import type { Executor } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { PERIODS, periodStart, type Period } from './periods.ts';
import { PERIOD_TABLES, SEARCH_MAX_CHARS, SITE_DAY, SITE_DAY_COUNTERS, type RollupTable, type SiteDayCounter } from './rollup-tables.ts';

/**
 * Every rollup that reports read, in one module: the site's day rows and the
 * per-period report tables (definitions in ./rollup-tables.ts).
 *
 * `rebuildRollups` is the definition (set-based, from answer_facts and
 * answers); the incremental path (`addToRollups`, run in the transaction
 * that stores each batch's facts) must give the same rows, which
 * test/integration/reports-rollups.test.ts checks table by table.
 *
 * Rows of one batch are sorted by key before they are written: two scans'
 * batches touching the same rows (one prompt, two assistants) then lock them
 * in the same order and wait for each other instead of deadlocking.
 */

export interface RolledAnswer {
  siteId: number;
  day: string;
  provider: string;
  promptId: number;
  scanId: number;
  answerId: number;
  askedAt: Date;
  model: string;
  searches: string[];
  facts: AnswerFacts;
}

type Row = Record<string, string | number | number[] | null>;
type Table = RollupTable;
const TABLES = PERIOD_TABLES;
type TableName = keyof typeof TABLES;

export type ReportRollupRows = Record<TableName, Row[]> & { latest: Row[]; siteDay: Row[] };

/** Accumulates counter rows by key; `add` creates the row with zero counters on first sight. */
class Accumulator {
  private readonly rows = new Map<string, Row>();
  private readonly table: Table;
  constructor(table: Table) {
    this.table = table;
  }
  add(key: (string | number)[], increments: Record<string, number>): void {
    if (this.table.kinds && !this.table.kinds.includes(key[1] as Period)) return;
    // NUL cannot occur in a stored text value, so joining on it keeps keys apart (and costs far less than JSON).
    const id = key.join('\u0000');
    let row = this.rows.get(id);
    if (!row) {
      row = {};
      this.table.columns.forEach(([name], i) => {
        (row as Row)[name] = i < this.table.keys ? (key[i] ?? null) : 0;
      });
      this.rows.set(id, row);
    }
    for (const name in increments) row[name] = (row[name] as number) + (increments[name] as number);
  }
  sorted(): Row[] {
    return [...this.rows.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, row]) => row);
  }
}

const truncateChars = (s: string, max: number) => (s.length <= max ? s : Array.from(s).slice(0, max).join(''));

/**
 * One search as counted: runs of spaces made one, spaces trimmed, ASCII
 * letters in lower case, at most SEARCH_MAX_CHARS characters. Only ASCII is
 * folded because the rebuild must fold exactly the same way in SQL
 * (`searchKeySql`), and JavaScript's and Postgres' Unicode case rules differ.
 */
export function searchKey(query: string): string {
  const folded = query
    .replace(/ +/g, ' ')
    .replace(/^ | $/g, '')
    .replace(/[A-Z]/g, (c) => c.toLowerCase());
  return truncateChars(folded, SEARCH_MAX_CHARS);
}

export const searchKeySql = (column: string) =>
  sql`left(translate(btrim(regexp_replace(${sql.raw(column)}, ' +', ' ', 'g'), ' '), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), ${SEARCH_MAX_CHARS})`;

/** The rows one batch of answers adds, pure: what the incremental path writes. */
export function reportRollupRows(items: readonly RolledAnswer[]): ReportRollupRows {
  const acc = Object.fromEntries(Object.entries(TABLES).map(([k, t]) => [k, new Accumulator(t)])) as Record<TableName, Accumulator>;
  const siteDay = new Accumulator(SITE_DAY);
  const latest = new Map<string, RolledAnswer>();

  for (const item of items) {
    const { siteId, day, provider, promptId, facts: f } = item;
    const verdict = f.verdict;
    const named = [...new Set(f.competitorsNamed)];
    const involved = [...new Set([...f.competitorsNamed, ...f.competitorsCited])];
    const sources = new Map<string, { domain: string; siteType: string; n: number }>();
    const pages = new Map<string, { owner: number; url: string }>();
    const ownPages = new Set<string>();
    for (const c of f.citations) {
      if (c.domain !== '') {
        const key = JSON.stringify([c.domain, c.siteType]);
        const s = sources.get(key) ?? { domain: c.domain, siteType: c.siteType, n: 0 };
        s.n++;
        sources.set(key, s);
      }
      const owner = c.siteType === 'own' ? 0 : c.competitorId;
      if (owner !== null) pages.set(JSON.stringify([owner, c.normalizedUrl]), { owner, url: c.normalizedUrl });
      if (c.siteType === 'own') ownPages.add(c.normalizedUrl);
    }
    const citationsByType = new Map<string, number>();
    for (const s of sources.values()) citationsByType.set(s.siteType, (citationsByType.get(s.siteType) ?? 0) + s.n);
    const searches = new Set(item.searches.map(searchKey).filter((q) => q !== ''));
    siteDay.add([siteId, day, provider], {
      answers: 1,
      failed: verdict === 'failed' ? 1 : 0,
      mentioned: f.mentioned ? 1 : 0,
      own_cited: f.ownCited ? 1 : 0,
      rank_sum: f.brandRank ?? 0,
      rank_count: f.brandRank === null ? 0 : 1,
      competitor_mentions: f.competitorsNamed.length,
      positive: f.tone === 'positive' ? 1 : 0,
      neutral: f.tone === 'neutral' ? 1 : 0,
      negative: f.tone === 'negative' ? 1 : 0,
      tone_sum: f.toneScore ?? 0,
    });

    for (const period of PERIODS) {
      const k = [siteId, period, periodStart(period, day)];
      acc.promptPeriod.add([...k, promptId], {
        answers: 1,
        failed: verdict === 'failed' ? 1 : 0,
        cited: verdict === 'cited' ? 1 : 0,
        named: verdict === 'named' ? 1 : 0,
        lost: verdict === 'lost' ? 1 : 0,
        missing: verdict === 'missing' ? 1 : 0,
        mentioned: f.mentioned ? 1 : 0,
        competitor_mentions: f.competitorsNamed.length,
        rank_sum: f.brandRank ?? 0,
        rank_count: f.brandRank === null ? 0 : 1,
      });
      acc.promptProvider.add([...k, promptId, provider], {
        answers: 1,
        failed: verdict === 'failed' ? 1 : 0,
        mentioned: f.mentioned ? 1 : 0,
        own_cited: f.ownCited ? 1 : 0,
        competitor_mentions: f.competitorsNamed.length,
        positive: f.tone === 'positive' ? 1 : 0,
        neutral: f.tone === 'neutral' ? 1 : 0,
        negative: f.tone === 'negative' ? 1 : 0,
      });
      for (const id of named) {
        acc.promptCompetitor.add([...k, id, promptId], { mentioned: 1, both_named: f.mentioned ? 1 : 0 });
        acc.promptProviderCompetitor.add([...k, id, promptId, provider], { mentioned: 1 });
      }
      for (const id of involved) {
        const place = f.competitorsNamed.indexOf(id) + 1;
        const both = place > 0 && f.mentioned && f.brandRank !== null;
        acc.competitor.add([...k, id, provider], {
          mentioned: place > 0 ? 1 : 0,
          cited: f.competitorsCited.includes(id) ? 1 : 0,
          both_named: both ? 1 : 0,
          // competitorsNamed is in rank order, so the brand is ahead of the competitor in place p when its rank is at most p.
          brand_ahead: both && (f.brandRank as number) <= place ? 1 : 0,
          competitor_ahead: both && (f.brandRank as number) > place ? 1 : 0,
        });
      }
      for (const s of sources.values()) {
        acc.source.add([...k, s.domain, s.siteType], { answers: 1, names_brand: f.mentioned ? 1 : 0, citations: s.n });
        acc.promptSource.add([...k, s.domain, s.siteType, promptId], { answers: 1, names_brand: f.mentioned ? 1 : 0, citations: s.n });
      }
      for (const [siteType, n] of citationsByType) acc.promptSiteType.add([...k, siteType, promptId], { citations: n });
      for (const p of pages.values()) acc.page.add([...k, p.owner, p.url], { answers: 1 });
      for (const url of ownPages) acc.ownPagePrompt.add([...k, url, promptId, provider], { answers: 1 });
      for (const query of searches) acc.search.add([...k, promptId, query], { answers: 1 });
      acc.model.add([...k, provider, item.model], { answers: 1 });
      for (const name of new Set(f.suggestions)) acc.suggestion.add([...k, name], { answers: 1 });
    }

    const lkey = JSON.stringify([promptId, provider]);
    const prev = latest.get(lkey);
    if (!prev || item.askedAt.getTime() > prev.askedAt.getTime() || (item.askedAt.getTime() === prev.askedAt.getTime() && item.answerId > prev.answerId)) latest.set(lkey, item);
  }

  const rows = Object.fromEntries(Object.entries(acc).map(([k, a]) => [k, a.sorted()])) as Record<TableName, Row[]>;
  const latestRows = [...latest.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([, a]) => ({
      prompt_id: a.promptId,
      provider: a.provider,
      site_id: a.siteId,
      scan_id: a.scanId,
      answer_id: a.answerId,
      asked_at: a.askedAt.toISOString(),
      verdict: a.facts.verdict,
      brand_rank: a.facts.brandRank,
      competitors_named: a.facts.competitorsNamed,
    }));
  return { ...rows, siteDay: siteDay.sorted(), latest: latestRows };
}

function upsert(alias: string, table: Table, rows: Row[]): RawBuilder<unknown> {
  const cols = table.columns.map(([n]) => n).join(', ');
  const recordType = table.columns.map(([n, t]) => `${n} ${t}`).join(', ');
  const keys = table.columns
    .slice(0, table.keys)
    .map(([n]) => n)
    .join(', ');
  const sets = table.columns
    .slice(table.keys)
    .map(([n]) => `${n} = t.${n} + excluded.${n}`)
    .join(', ');
  return sql`${sql.raw(alias)} AS (
    INSERT INTO ${sql.raw(table.name)} AS t (${sql.raw(cols)})
    SELECT ${sql.raw(cols)} FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(${sql.raw(recordType)})
    ON CONFLICT (${sql.raw(keys)}) DO UPDATE SET ${sql.raw(sets)})`;
}

/**
 * Adds one batch of answers to every rollup, in the transaction that stores
 * their facts: one statement for every counter table and the latest answers
 * (data-modifying CTEs, rows as JSON parameters), then one for the summaries
 * of the prompts touched.
 */
export async function addToRollups(db: Executor, items: readonly RolledAnswer[]): Promise<void> {
  if (items.length === 0) return;
  const rows = reportRollupRows(items);
  const ctes = [upsert('site_day', SITE_DAY, rows.siteDay), ...(Object.keys(TABLES) as TableName[]).filter((k) => rows[k].length > 0).map((k) => upsert(k, TABLES[k], rows[k]))];
  const latest = sql`latest AS (
    INSERT INTO rollup_prompt_latest AS t (prompt_id, provider, site_id, scan_id, answer_id, asked_at, verdict, brand_rank, competitors_named)
    SELECT prompt_id, provider, site_id, scan_id, answer_id, asked_at, verdict, brand_rank, ARRAY(SELECT jsonb_array_elements_text(competitors_named)::int)
      FROM jsonb_to_recordset(${JSON.stringify(rows.latest)}::jsonb)
        AS r(prompt_id int, provider text, site_id int, scan_id int, answer_id bigint, asked_at timestamptz, verdict text, brand_rank int, competitors_named jsonb)
    ON CONFLICT (prompt_id, provider) DO UPDATE SET
      scan_id = excluded.scan_id, answer_id = excluded.answer_id, asked_at = excluded.asked_at, verdict = excluded.verdict,
      brand_rank = excluded.brand_rank, competitors_named = excluded.competitors_named
    WHERE (excluded.asked_at, excluded.answer_id) > (t.asked_at, t.answer_id))`;
  await sql`WITH ${sql.join([...ctes, latest], sql`, `)} SELECT 1`.execute(db);
  // A statement's CTEs all see the snapshot from before it, so sample counts and summaries read the latest answers in later ones.
  const pairs = rows.latest.map((r) => [r.prompt_id as number, r.provider as string] as const);
  await recountLatest(db, sql`(l.prompt_id, l.provider) IN (SELECT * FROM unnest(${pairs.map((p) => p[0])}::int[], ${pairs.map((p) => p[1])}::text[]))`);
  const promptIds = [...new Set(items.map((i) => i.promptId))].sort((a, b) => a - b);
  await sql`
    INSERT INTO rollup_prompt_summary AS t (prompt_id, site_id, scanned_at, brand_rank, answered, named, consistency)
    SELECT ${SUMMARY_COLUMNS} FROM rollup_prompt_latest
     WHERE prompt_id = ANY(${promptIds}::int[]) GROUP BY prompt_id, site_id
     ORDER BY prompt_id
    ON CONFLICT (prompt_id) DO UPDATE SET scanned_at = excluded.scanned_at, brand_rank = excluded.brand_rank,
      answered = excluded.answered, named = excluded.named, consistency = excluded.consistency`.execute(db);
}

/** A prompt's summary from its rows of rollup_prompt_latest (grouped by prompt and site). */
const SUMMARY_COLUMNS = sql`prompt_id, site_id, max(asked_at), avg(brand_rank), sum(answered), sum(named),
  CASE WHEN sum(answered) > 0 THEN sum(named)::real / sum(answered) END`;

/**
 * Sets the sample counts of the latest rows `where` selects (alias `l`):
 * over the answers of the latest answer's scan to that prompt and
 * assistant, how many were asked, answered (did not fail), and named or
 * cited the brand. Counted from the answers and facts, so every path (a
 * batch, a rebuild, reanalysis) gives the same counts.
 */
async function recountLatest(db: Executor, where: RawBuilder<unknown>): Promise<void> {
  await sql`
    UPDATE rollup_prompt_latest t SET samples = x.samples, answered = x.answered, named = x.named
      FROM (SELECT l.prompt_id, l.provider, count(*)::int AS samples, count(*) FILTER (WHERE f.verdict <> 'failed')::int AS answered,
                   count(*) FILTER (WHERE f.verdict IN ('named', 'cited'))::int AS named
              FROM rollup_prompt_latest l
              JOIN answers a ON a.scan_id = l.scan_id AND a.prompt_id = l.prompt_id AND a.provider = l.provider
              JOIN answer_facts f ON f.answer_id = a.id AND f.month = a.month
             WHERE ${where}
             GROUP BY l.prompt_id, l.provider) x
     WHERE t.prompt_id = x.prompt_id AND t.provider = x.provider
       AND (t.samples, t.answered, t.named) IS DISTINCT FROM (x.samples, x.answered, x.named)`.execute(db);
}

/** Each (day) row also counts in its week, month and quarter (the kinds the table keeps). */
function expand(alias: string, kinds: readonly Period[]): RawBuilder<unknown> {
  const d = sql.raw(`${alias}.day`);
  const startOf = (p: Period) => (p === 'day' ? d : sql`date_trunc(${sql.lit(p)}, ${d}::timestamp)::date`);
  const rows = kinds.map((p) => sql`(${sql.lit(p)}::text, ${startOf(p)})`);
  return sql`CROSS JOIN LATERAL (VALUES ${sql.join(rows)}) AS k(period, start)`;
}

/** INSERT of a counter table from per-day rows `d` (one CTE body), summed into every period kind. */
function rebuildFrom(table: Table, perDay: RawBuilder<unknown>): RawBuilder<unknown> {
  const rest = table.columns.slice(3, table.keys).map(([n]) => n);
  const sums = table.columns.slice(table.keys).map(([n]) => `sum(d.${n})`);
  const cols = table.columns.map(([n]) => n).join(', ');
  const group = ['d.site_id', 'k.period', 'k.start', ...rest.map((n) => `d.${n}`)].join(', ');
  return sql`WITH d AS (${perDay})
    INSERT INTO ${sql.raw(table.name)} (${sql.raw(cols)})
    SELECT ${sql.raw(group)}, ${sql.raw(sums.join(', '))} FROM d ${expand('d', table.kinds ?? PERIODS)} GROUP BY ${sql.raw(group)}
    -- Written in key order, so one period's rows sit on few pages.
    ORDER BY ${sql.raw(group)}`;
}

/**
 * What a rebuild recomputes: `all` tables, or only what depends on facts
 * (`facts`, after reanalysis). Models and searches come from the answers
 * alone, and which answer is each assistant's latest does not change when
 * facts are rewritten, so reanalysis keeps those rows and refreshes the
 * latest answers' verdicts in place.
 */
export type RebuildScope = 'all' | 'facts';
const ANSWER_TABLES: readonly Table[] = [TABLES.search, TABLES.model];

/** How each site-day counter is computed from a day's answer_facts rows. */
const SITE_DAY_SQL: Record<SiteDayCounter, string> = {
  answers: 'count(*)',
  failed: "count(*) FILTER (WHERE verdict = 'failed')",
  mentioned: 'count(*) FILTER (WHERE mentioned)',
  ownCited: 'count(*) FILTER (WHERE own_cited)',
  rankSum: 'coalesce(sum(brand_rank), 0)',
  rankCount: 'count(brand_rank)',
  competitorMentions: 'coalesce(sum(cardinality(competitors_named)), 0)',
  positive: "count(*) FILTER (WHERE tone = 'positive')",
  neutral: "count(*) FILTER (WHERE tone = 'neutral')",
  negative: "count(*) FILTER (WHERE tone = 'negative')",
  toneSum: 'coalesce(sum(tone_score), 0)',
};

/** Recomputes a site's rollups from its facts, set-based, in the caller's transaction (`scope`: see RebuildScope). */
export async function rebuildRollups(trx: Transaction<Database>, siteId: number, scope: RebuildScope = 'all'): Promise<void> {
  // The aggregations and sorts below handle a few rows per answer: with the default 4 MB they spill to disk.
  await sql`SET LOCAL work_mem = '128MB'`.execute(trx);
  await sql`DELETE FROM rollup_site_day WHERE site_id = ${siteId}`.execute(trx);
  const siteDayColumns = SITE_DAY.columns.map(([n]) => n).join(', ');
  const siteDayValues = SITE_DAY_COUNTERS.map((c) => SITE_DAY_SQL[c]).join(', ');
  await sql`
    INSERT INTO rollup_site_day (${sql.raw(siteDayColumns)})
    SELECT site_id, day, provider, ${sql.raw(siteDayValues)}
      FROM answer_facts WHERE site_id = ${siteId}
     GROUP BY site_id, day, provider`.execute(trx);
  const rebuilt = (table: Table) => scope === 'all' || !ANSWER_TABLES.includes(table);
  const cleared = [
    ...Object.values(TABLES)
      .filter(rebuilt)
      .map((t) => t.name),
    ...(scope === 'all' ? ['rollup_prompt_latest'] : []),
    'rollup_prompt_summary',
  ];
  for (const name of cleared) await sql`DELETE FROM ${sql.raw(name)} WHERE site_id = ${siteId}`.execute(trx);
  const statements: [Table, RawBuilder<unknown>][] = [
    [
      TABLES.promptPeriod,
      sql`SELECT site_id, day, prompt_id, count(*) AS answers, count(*) FILTER (WHERE verdict = 'failed') AS failed,
                 count(*) FILTER (WHERE verdict = 'cited') AS cited, count(*) FILTER (WHERE verdict = 'named') AS named,
                 count(*) FILTER (WHERE verdict = 'lost') AS lost, count(*) FILTER (WHERE verdict = 'missing') AS missing,
                 count(*) FILTER (WHERE mentioned) AS mentioned, coalesce(sum(cardinality(competitors_named)), 0) AS competitor_mentions,
                 coalesce(sum(brand_rank), 0) AS rank_sum, count(brand_rank) AS rank_count
            FROM answer_facts WHERE site_id = ${siteId} GROUP BY site_id, day, prompt_id`,
    ],
    [
      TABLES.promptProvider,
      sql`SELECT site_id, day, prompt_id, provider, count(*) AS answers, count(*) FILTER (WHERE verdict = 'failed') AS failed,
                 count(*) FILTER (WHERE mentioned) AS mentioned, count(*) FILTER (WHERE own_cited) AS own_cited,
                 coalesce(sum(cardinality(competitors_named)), 0) AS competitor_mentions, count(*) FILTER (WHERE tone = 'positive') AS positive,
                 count(*) FILTER (WHERE tone = 'neutral') AS neutral, count(*) FILTER (WHERE tone = 'negative') AS negative
            FROM answer_facts WHERE site_id = ${siteId} GROUP BY site_id, day, prompt_id, provider`,
    ],
    [
      TABLES.promptProviderCompetitor,
      sql`SELECT f.site_id, f.day, c.id AS competitor_id, f.prompt_id, f.provider, count(*) AS mentioned
            FROM answer_facts f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.competitors_named) AS id) c
           WHERE f.site_id = ${siteId} GROUP BY f.site_id, f.day, c.id, f.prompt_id, f.provider`,
    ],
    [
      TABLES.promptSiteType,
      sql`SELECT f.site_id, f.day, x->>'siteType' AS site_type, f.prompt_id, count(*) AS citations
            FROM answer_facts f CROSS JOIN LATERAL jsonb_array_elements(f.citations) x
           WHERE f.site_id = ${siteId} AND x->>'domain' <> ''
           GROUP BY f.site_id, f.day, x->>'siteType', f.prompt_id`,
    ],
    [
      TABLES.promptSource,
      sql`SELECT f.site_id, f.day, c.domain, c.site_type, f.prompt_id, count(*) AS answers, count(*) FILTER (WHERE f.mentioned) AS names_brand, sum(c.n) AS citations
            FROM answer_facts f
           CROSS JOIN LATERAL (SELECT x->>'domain' AS domain, x->>'siteType' AS site_type, count(*) AS n
                                 FROM jsonb_array_elements(f.citations) x WHERE x->>'domain' <> '' GROUP BY 1, 2) c
           WHERE f.site_id = ${siteId}
           GROUP BY f.site_id, f.day, c.domain, c.site_type, f.prompt_id`,
    ],
    [
      TABLES.promptCompetitor,
      sql`SELECT f.site_id, f.day, c.id AS competitor_id, f.prompt_id, count(*) AS mentioned, count(*) FILTER (WHERE f.mentioned) AS both_named
            FROM answer_facts f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.competitors_named) AS id) c
           WHERE f.site_id = ${siteId} GROUP BY f.site_id, f.day, c.id, f.prompt_id`,
    ],
    [
      TABLES.competitor,
      sql`SELECT f.site_id, f.day, c.id AS competitor_id, f.provider,
                 count(*) FILTER (WHERE c.id = ANY (f.competitors_named)) AS mentioned,
                 count(*) FILTER (WHERE c.id = ANY (f.competitors_cited)) AS cited,
                 count(*) FILTER (WHERE f.mentioned AND c.id = ANY (f.competitors_named)) AS both_named,
                 count(*) FILTER (WHERE f.mentioned AND f.brand_rank <= array_position(f.competitors_named, c.id)) AS brand_ahead,
                 count(*) FILTER (WHERE f.mentioned AND f.brand_rank > array_position(f.competitors_named, c.id)) AS competitor_ahead
            FROM answer_facts f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.competitors_named || f.competitors_cited) AS id) c
           WHERE f.site_id = ${siteId} GROUP BY f.site_id, f.day, c.id, f.provider`,
    ],
    [
      TABLES.source,
      sql`SELECT f.site_id, f.day, c.domain, c.site_type, count(*) AS answers, count(*) FILTER (WHERE f.mentioned) AS names_brand, sum(c.n) AS citations
            FROM answer_facts f
           CROSS JOIN LATERAL (SELECT x->>'domain' AS domain, x->>'siteType' AS site_type, count(*) AS n
                                 FROM jsonb_array_elements(f.citations) x WHERE x->>'domain' <> '' GROUP BY 1, 2) c
           WHERE f.site_id = ${siteId}
           GROUP BY f.site_id, f.day, c.domain, c.site_type`,
    ],
    [
      TABLES.page,
      sql`SELECT f.site_id, f.day, c.competitor_id, c.url, count(*) AS answers
            FROM answer_facts f
           CROSS JOIN LATERAL (SELECT DISTINCT CASE WHEN x->>'siteType' = 'own' THEN 0 ELSE (x->>'competitorId')::int END AS competitor_id, x->>'normalizedUrl' AS url
                                 FROM jsonb_array_elements(f.citations) x WHERE x->>'siteType' = 'own' OR x->>'competitorId' IS NOT NULL) c
           WHERE f.site_id = ${siteId}
           GROUP BY f.site_id, f.day, c.competitor_id, c.url`,
    ],
    [
      TABLES.ownPagePrompt,
      sql`SELECT f.site_id, f.day, c.url, f.prompt_id, f.provider, count(*) AS answers
            FROM answer_facts f
           CROSS JOIN LATERAL (SELECT DISTINCT x->>'normalizedUrl' AS url FROM jsonb_array_elements(f.citations) x WHERE x->>'siteType' = 'own') c
           WHERE f.site_id = ${siteId}
           GROUP BY f.site_id, f.day, c.url, f.prompt_id, f.provider`,
    ],
    [
      TABLES.search,
      // OFFSET 0 keeps the folding inside the subquery, where Postgres memoizes it per distinct list of searches.
      sql`SELECT f.site_id, f.day, f.prompt_id, q.query, count(*) AS answers
            FROM answer_facts f JOIN answers a ON a.id = f.answer_id AND a.month = f.month
           CROSS JOIN LATERAL (SELECT DISTINCT k.query FROM (SELECT ${searchKeySql('s')} AS query FROM jsonb_array_elements_text(a.searches) AS s OFFSET 0) k
                                WHERE k.query <> '') q
           WHERE f.site_id = ${siteId}
           GROUP BY f.site_id, f.day, f.prompt_id, q.query`,
    ],
    [
      TABLES.model,
      sql`SELECT f.site_id, f.day, f.provider, a.model, count(*) AS answers
            FROM answer_facts f JOIN answers a ON a.id = f.answer_id AND a.month = f.month
           WHERE f.site_id = ${siteId} GROUP BY f.site_id, f.day, f.provider, a.model`,
    ],
    [
      TABLES.suggestion,
      sql`SELECT f.site_id, f.day, s.name, count(*) AS answers
            FROM answer_facts f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.suggestions) AS name) s
           WHERE f.site_id = ${siteId} GROUP BY f.site_id, f.day, s.name`,
    ],
  ];
  for (const [table, perDay] of statements) if (rebuilt(table)) await rebuildFrom(table, perDay).execute(trx);
  if (scope === 'all') {
    await sql`
      INSERT INTO rollup_prompt_latest (prompt_id, provider, site_id, scan_id, answer_id, asked_at, verdict, brand_rank, competitors_named)
      SELECT DISTINCT ON (f.prompt_id, f.provider) f.prompt_id, f.provider, f.site_id, a.scan_id, f.answer_id, a.asked_at, f.verdict, f.brand_rank, f.competitors_named
        FROM answer_facts f JOIN answers a ON a.id = f.answer_id AND a.month = f.month
       WHERE f.site_id = ${siteId}
       ORDER BY f.prompt_id, f.provider, a.asked_at DESC, f.answer_id DESC`.execute(trx);
  } else {
    await sql`
      UPDATE rollup_prompt_latest l SET verdict = f.verdict, brand_rank = f.brand_rank, competitors_named = f.competitors_named
        FROM answer_facts f
       WHERE f.answer_id = l.answer_id AND l.site_id = ${siteId}`.execute(trx);
  }
  await recountLatest(trx, sql`l.site_id = ${siteId}`);
  await sql`
    INSERT INTO rollup_prompt_summary (prompt_id, site_id, scanned_at, brand_rank, answered, named, consistency)
    SELECT ${SUMMARY_COLUMNS} FROM rollup_prompt_latest
     WHERE site_id = ${siteId} GROUP BY prompt_id, site_id`.execute(trx);
}
