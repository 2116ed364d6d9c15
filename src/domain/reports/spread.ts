import { sql, type RawBuilder } from 'kysely';
import { clusteredShare, realChange, type ClusterSums, type ShareEstimate } from '../../analysis/index.ts';
import type { Db } from '../../db/database.ts';
import type { Period } from '../common/index.ts';

/**
 * How sure each share of a report is (docs/analysis.md "Intervals"). A
 * share's interval needs its spread over prompts: per period, sums of the
 * squares and products of each prompt's counts, which the database adds up
 * from the per-prompt rollups (rollup_prompt_period for the site and its
 * categories, rollup_prompt_provider_period per assistant, the per-prompt
 * competitor rollup per competitor; a day's per-assistant and competitor rows
 * come from that day's facts). So an interval costs a few sums, not a read of
 * every prompt, and the report stays within its time.
 */

/** The spread of a report's three shares over one set of prompts. */
export interface ShareSpread {
  /** y: answers naming the brand; n: answers that did not fail. */
  visibility: ClusterSums;
  /** y: answers linking one of the site's pages; n: answers that did not fail. */
  ownCitationRate: ClusterSums;
  /** y: answers naming the brand; n: brand mentions, the brand's and tracked competitors' (one per answer per brand). */
  shareOfVoice: ClusterSums;
}

/** One row of spreadColumns, as the database returns it. */
export interface SpreadRow {
  clusters: number;
  voiceClusters: number;
  a: number;
  m: number;
  c: number;
  v: number;
  aa: number;
  mm: number;
  ma: number;
  cc: number;
  ca: number;
  vv: number;
  mv: number;
}

/**
 * Squares and products are summed as float8: Postgres sums bigints in
 * numeric, about a sixth slower over a window's per-(prompt, assistant)
 * rows, and the sums stay whole numbers far below 2^53, where float8 is exact.
 */

/**
 * The aggregate columns of a SpreadRow over per-prompt rows whose answered
 * (`a`), naming (`m`), own-citing (`c`) and brand-mention (`v`) counts are
 * the given expressions.
 */
export function spreadColumns(a: string, m: string, c: string, v: string): RawBuilder<unknown> {
  return sql.raw(
    [
      `count(*) FILTER (WHERE ${a} > 0) AS clusters`,
      `count(*) FILTER (WHERE ${v} > 0) AS voice_clusters`,
      `coalesce(sum(${a}), 0) AS a`,
      `coalesce(sum(${m}), 0) AS m`,
      `coalesce(sum(${c}), 0) AS c`,
      `coalesce(sum(${v}), 0) AS v`,
      `coalesce(sum((${a})::float8 * (${a})), 0) AS aa`,
      `coalesce(sum((${m})::float8 * (${m})), 0) AS mm`,
      `coalesce(sum((${m})::float8 * (${a})), 0) AS ma`,
      `coalesce(sum((${c})::float8 * (${c})), 0) AS cc`,
      `coalesce(sum((${c})::float8 * (${a})), 0) AS ca`,
      `coalesce(sum((${v})::float8 * (${v})), 0) AS vv`,
      `coalesce(sum((${m})::float8 * (${v})), 0) AS mv`,
    ].join(', '),
  );
}

/** spreadColumns over rollup_prompt_period rows (alias `r`). */
export const PROMPT_PERIOD_SPREAD = spreadColumns(
  'r.answers - r.failed',
  'r.mentioned',
  'r.cited',
  'r.mentioned + r.competitor_mentions',
);

export function spreadOf(r: SpreadRow): ShareSpread {
  const n = Number;
  return {
    visibility: { y: n(r.m), n: n(r.a), yy: n(r.mm), yn: n(r.ma), nn: n(r.aa), clusters: n(r.clusters) },
    ownCitationRate: { y: n(r.c), n: n(r.a), yy: n(r.cc), yn: n(r.ca), nn: n(r.aa), clusters: n(r.clusters) },
    shareOfVoice: { y: n(r.m), n: n(r.v), yy: n(r.mm), yn: n(r.mv), nn: n(r.vv), clusters: n(r.voiceClusters) },
  };
}

export interface ShareEstimates {
  visibility: ShareEstimate | null;
  ownCitationRate: ShareEstimate | null;
  shareOfVoice: ShareEstimate | null;
}

export function estimatesOf(spread: ShareSpread | undefined): ShareEstimates {
  return {
    visibility: spread ? clusteredShare(spread.visibility) : null,
    ownCitationRate: spread ? clusteredShare(spread.ownCitationRate) : null,
    shareOfVoice: spread ? clusteredShare(spread.shareOfVoice) : null,
  };
}

const pct = (v: number) => Math.round(v * 1000) / 10;

/** An interval in percent to one decimal, as the shares are shown; nulls when there is no share. */
export function bounds(e: ShareEstimate | null): { low: number | null; high: number | null } {
  return e ? { low: pct(e.low), high: pct(e.high) } : { low: null, high: null };
}

/**
 * A headline's share fields with their 95% intervals: `ownCitationRate`
 * (answers linking an own page, percent of answers that did not fail) and
 * `<share>Low` / `<share>High` for visibility, own citation rate and share
 * of voice.
 */
export function shareIntervals(ownCited: number, answered: number, e: ShareEstimates) {
  const v = bounds(e.visibility);
  const o = bounds(e.ownCitationRate);
  const s = bounds(e.shareOfVoice);
  return {
    ownCitationRate: answered > 0 ? Math.round((1000 * ownCited) / answered) / 10 : null,
    visibilityLow: v.low,
    visibilityHigh: v.high,
    ownCitationRateLow: o.low,
    ownCitationRateHigh: o.high,
    shareOfVoiceLow: s.low,
    shareOfVoiceHigh: s.high,
  };
}

/** Whether each share moved by more than its noise (docs/analysis.md "Real changes"); null where a side has no share. */
export function realChanges(current: ShareEstimates, previous: ShareEstimates) {
  return {
    visibilityReal: realChange(current.visibility, previous.visibility),
    ownCitationRateReal: realChange(current.ownCitationRate, previous.ownCitationRate),
    shareOfVoiceReal: realChange(current.shareOfVoice, previous.shareOfVoice),
  };
}

/** The site's spread per period start, `first` to `last` (starts, inclusive). */
export async function siteSpreadByPeriod(
  db: Db,
  siteId: number,
  period: Period,
  first: string,
  last: string,
): Promise<Map<string, ShareSpread>> {
  const { rows } = await sql<SpreadRow & { start: string }>`
    SELECT r.start, ${PROMPT_PERIOD_SPREAD}
      FROM rollup_prompt_period r
     WHERE r.site_id = ${siteId} AND r.period = ${period} AND r.start >= ${first} AND r.start <= ${last}
     GROUP BY r.start`.execute(db);
  return new Map(rows.map((r) => [r.start, spreadOf(r)]));
}

/**
 * `(start, provider, prompt_id, a, m, c, v, pos, neu, neg)`: per prompt and
 * assistant in the given periods, answers that did not fail, naming the
 * brand, linking an own page, brand mentions (the brand's and competitors'),
 * and answers of each tone. From rollup_prompt_provider_period, or for days
 * from those days' facts (the table keeps no day rows).
 */
export function promptProviderRows(siteId: number, period: Period, starts: readonly string[]): RawBuilder<unknown> {
  return period === 'day'
    ? sql`SELECT day AS start, provider, prompt_id, count(*) - count(*) FILTER (WHERE verdict = 'failed') AS a, count(*) FILTER (WHERE mentioned) AS m,
                 count(*) FILTER (WHERE own_cited) AS c, count(*) FILTER (WHERE mentioned) + coalesce(sum(cardinality(competitors_named)), 0) AS v,
                 count(*) FILTER (WHERE tone = 'positive') AS pos, count(*) FILTER (WHERE tone = 'neutral') AS neu, count(*) FILTER (WHERE tone = 'negative') AS neg
            FROM answer_facts WHERE site_id = ${siteId} AND day = ANY(${[...starts]}::date[])
           GROUP BY day, provider, prompt_id`
    : sql`SELECT start, provider, prompt_id, answers - failed AS a, mentioned AS m, own_cited AS c, mentioned + competitor_mentions AS v,
                 positive AS pos, neutral AS neu, negative AS neg
            FROM rollup_prompt_provider_period WHERE site_id = ${siteId} AND period = ${period} AND start = ANY(${[...starts]}::date[])`;
}

/**
 * `(start, provider, prompt_id, competitor_id, mentioned)`: answers naming a
 * competitor (one, or every one when `competitorId` is not given) per prompt
 * and assistant: from rollup_prompt_provider_competitor_period, or for days
 * from those days' facts.
 */
export function promptProviderCompetitorRows(
  siteId: number,
  period: Period,
  starts: readonly string[],
  competitorId?: number,
): RawBuilder<unknown> {
  if (period === 'day') {
    return sql`SELECT f.day AS start, f.provider, f.prompt_id, x.id AS competitor_id, count(*) AS mentioned
                 FROM answer_facts f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.competitors_named) AS id) x
                WHERE f.site_id = ${siteId} AND f.day = ANY(${[...starts]}::date[]) ${competitorId === undefined ? sql`` : sql`AND x.id = ${competitorId}`}
                GROUP BY 1, 2, 3, 4`;
  }
  return sql`SELECT start, provider, prompt_id, competitor_id, mentioned FROM rollup_prompt_provider_competitor_period
              WHERE site_id = ${siteId} AND period = ${period} AND start = ANY(${[...starts]}::date[])
                ${competitorId === undefined ? sql`` : sql`AND competitor_id = ${competitorId}`}`;
}

/**
 * Each assistant's spread over prompts in the given periods, keyed
 * `start|provider` (see promptProviderRows).
 */
export async function providerSpread(
  db: Db,
  siteId: number,
  period: Period,
  starts: readonly string[],
): Promise<Map<string, ShareSpread>> {
  const { rows } = await sql<SpreadRow & { start: string; provider: string }>`
    SELECT x.start, x.provider, ${spreadColumns('x.a', 'x.m', 'x.c', 'x.v')} FROM (${promptProviderRows(siteId, period, starts)}) x GROUP BY x.start, x.provider`.execute(
    db,
  );
  return new Map(rows.map((r) => [`${r.start}|${r.provider}`, spreadOf(r)]));
}

/**
 * One share's ClusterSums as a JSON array, over per-prompt rows whose
 * numerator and denominator are the expressions `y` and `n`:
 * [Σy, Σn, Σy², Σy·n, Σn², prompts with n > 0]. Read back with clusterOf.
 */
export function clusterJson(y: string, n: string): RawBuilder<unknown> {
  return sql.raw(
    `json_build_array(coalesce(sum(${y}), 0), coalesce(sum(${n}), 0), coalesce(sum((${y})::float8 * (${y})), 0), coalesce(sum((${y})::float8 * (${n})), 0),
                      coalesce(sum((${n})::float8 * (${n})), 0), count(*) FILTER (WHERE ${n} > 0))`,
  );
}

export function clusterOf(a: readonly (number | string)[] | null | undefined): ClusterSums | undefined {
  if (!a) return undefined;
  const [y, n, yy, yn, nn, clusters] = a.map(Number) as [number, number, number, number, number, number];
  return { y, n, yy, yn, nn, clusters };
}

/** A share's 95% interval in percent (see bounds) from its sums; nulls without any. */
export function shareBounds(s: ClusterSums | undefined): { low: number | null; high: number | null } {
  return bounds(s ? clusteredShare(s) : null);
}

/**
 * A numerator's sums over prompts against a denominator whose own sums are
 * known (`whole`: Σn, Σn², clusters), joined per prompt in SQL: y = Σy,
 * yy = Σy², yn = Σy·n. E.g. a competitor's or a cited domain's answers
 * against the answers that did not fail.
 */
export function against(
  whole: ClusterSums | undefined,
  part: { y: number; yy: number; yn: number } | undefined,
): ClusterSums | undefined {
  if (!whole) return undefined;
  const { y, yy, yn } = part ?? { y: 0, yy: 0, yn: 0 };
  return { ...whole, y, yy, yn };
}

/**
 * Two brands' visibility and their share of voice between them (a
 * competitor against the brand), over per-prompt rows of answers that did
 * not fail (`a`), naming the brand (`m`) and naming the competitor (`y`):
 * one JSON array of the sums pairOf needs.
 */
export function pairJson(a: string, m: string, y: string): RawBuilder<unknown> {
  const sq = (x: string, z: string) => `coalesce(sum((${x})::float8 * (${z})), 0)`;
  return sql.raw(
    `json_build_array(coalesce(sum(${a}), 0), coalesce(sum(${m}), 0), coalesce(sum(${y}), 0), ${sq(a, a)}, ${sq(m, m)}, ${sq(y, y)}, ${sq(m, a)}, ${sq(y, a)}, ${sq(m, y)},
                      count(*) FILTER (WHERE ${a} > 0), count(*) FILTER (WHERE (${m}) + (${y}) > 0))`,
  );
}

export interface PairSpread {
  brandVisibility: ClusterSums;
  competitorVisibility: ClusterSums;
  /** Brand mentions over brand and competitor mentions. */
  brandVoice: ClusterSums;
  competitorVoice: ClusterSums;
}

export function pairOf(arr: readonly (number | string)[] | null | undefined): PairSpread | undefined {
  if (!arr) return undefined;
  const [a, m, y, aa, mm, yy, ma, ya, my, clusters, voiceClusters] = arr.map(Number) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // The voice denominator per prompt is m + y: its sums follow from the products.
  const v = { n: m + y, nn: mm + 2 * my + yy, clusters: voiceClusters };
  return {
    brandVisibility: { y: m, n: a, yy: mm, yn: ma, nn: aa, clusters },
    competitorVisibility: { y, n: a, yy, yn: ya, nn: aa, clusters },
    brandVoice: { y: m, yy: mm, yn: mm + my, ...v },
    competitorVoice: { y, yy, yn: yy + my, ...v },
  };
}

/** A competitor's sums over prompts: mentions y, Σy², Σy·answered, Σy·brand mentions. */
export interface CompetitorSums {
  y: number;
  yy: number;
  ya: number;
  yv: number;
}

/**
 * Each competitor's per-prompt mentions in one period, summed for its
 * visibility and share of voice intervals (competitorShareSpread): from the
 * per-prompt competitor rollup, or for a day from that day's facts. Both
 * sides come back as arrays and are joined here: joined in SQL, the planner
 * looked each prompt up in the competitor rollup one by one (75 ms a month).
 */
export async function competitorSums(
  db: Db,
  siteId: number,
  period: Period,
  start: string,
): Promise<Map<number, CompetitorSums>> {
  const mentions =
    period === 'day'
      ? sql`SELECT x.id AS competitor_id, f.prompt_id, count(*)::int AS mentioned
              FROM answer_facts f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.competitors_named) AS id) x
             WHERE f.site_id = ${siteId} AND f.day = ${start} GROUP BY 1, 2`
      : sql`SELECT competitor_id, prompt_id, mentioned FROM rollup_prompt_competitor_period WHERE site_id = ${siteId} AND period = ${period} AND start = ${start}`;
  const [prompts, competitors] = await Promise.all([
    sql<{ ids: number[] | null; a: number[] | null; v: number[] | null }>`
      SELECT array_agg(prompt_id) AS ids, array_agg(answers - failed) AS a, array_agg(mentioned + competitor_mentions) AS v
        FROM rollup_prompt_period WHERE site_id = ${siteId} AND period = ${period} AND start = ${start}`.execute(db),
    sql<{ competitorId: number; ids: number[]; m: number[] }>`
      SELECT k.competitor_id, array_agg(k.prompt_id) AS ids, array_agg(k.mentioned) AS m FROM (${mentions}) k GROUP BY k.competitor_id`.execute(
      db,
    ),
  ]);
  const p = prompts.rows[0];
  const byPrompt = new Map<number, number>((p?.ids ?? []).map((id, i) => [id, i]));
  const out = new Map<number, CompetitorSums>();
  for (const c of competitors.rows) {
    const sums = { y: 0, yy: 0, ya: 0, yv: 0 };
    c.ids.forEach((id, i) => {
      const at = byPrompt.get(id);
      const y = c.m[i] ?? 0;
      if (at === undefined || y === 0) return;
      sums.y += y;
      sums.yy += y * y;
      sums.ya += y * (p?.a?.[at] ?? 0);
      sums.yv += y * (p?.v?.[at] ?? 0);
    });
    out.set(c.competitorId, sums);
  }
  return out;
}

/**
 * A competitor's visibility and share of voice spread: its own numerator
 * sums over the same per-prompt denominators as the brand's (answers that
 * did not fail, all brand mentions); no sums means named nowhere.
 */
export function competitorShareSpread(
  site: ShareSpread | undefined,
  c: CompetitorSums | undefined,
): ShareSpread | undefined {
  if (!site) return undefined;
  const { y, yy, ya, yv } = c ?? { y: 0, yy: 0, ya: 0, yv: 0 };
  return {
    visibility: { ...site.visibility, y, yy, yn: ya },
    ownCitationRate: site.ownCitationRate,
    shareOfVoice: { ...site.shareOfVoice, y, yy, yn: yv },
  };
}
