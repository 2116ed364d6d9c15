import { sql } from 'kysely';
import { fold } from '../../analysis/fold.ts';
import { shareOfVoice, visibility } from '../../analysis/index.ts';
import { PROVIDER_KEYS, providerEntry } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { SiteRow } from '../../db/schema.ts';
import { previousPeriod, type Period, type PeriodQuery, round1 } from '../common/index.ts';
import {
  addCounts,
  emptyCounts,
  headline,
  periodEcho,
  periodsWithData,
  resolvePeriod,
  siteCountsByPeriod,
  type SiteCounts,
} from './base.ts';
import {
  against,
  competitorShareSpread,
  competitorSums,
  promptProviderCompetitorRows,
  promptProviderRows,
  providerSpread,
  shareBounds,
  siteSpreadByPeriod,
  type CompetitorSums,
  type ShareSpread,
} from './spread.ts';

/** GET /projects/:id/competitors: the brand against every tracked competitor. */

/** Suggestions are names seen in at least this many answers (CONTRACT.md). */
const SUGGESTION_MIN_ANSWERS = 2;
const SUGGESTIONS_LISTED = 50;

export interface CompetitorCounts {
  mentioned: number;
  cited: number;
  bothNamed: number;
  brandAhead: number;
  competitorAhead: number;
}

const zero = (): CompetitorCounts => ({ mentioned: 0, cited: 0, bothNamed: 0, brandAhead: 0, competitorAhead: 0 });

/** Competitor rows of some periods, one row per (competitor, start, provider). */
export function competitorRows(db: Db, siteId: number, period: Period, starts: string[], competitorId?: number) {
  let q = db
    .selectFrom('rollupCompetitorPeriod')
    .select(['competitorId', 'start', 'provider', 'mentioned', 'cited', 'bothNamed', 'brandAhead', 'competitorAhead'])
    .where('siteId', '=', siteId)
    .where('period', '=', period)
    .where('start', 'in', starts);
  if (competitorId !== undefined) q = q.where('competitorId', '=', competitorId);
  return q.execute();
}

export function sumCompetitor(
  rows: readonly (CompetitorCounts & { competitorId: number; start: string; provider: string })[],
  match: { competitorId?: number; start: string; provider?: string },
): CompetitorCounts {
  const out = zero();
  for (const r of rows) {
    if (
      r.start !== match.start ||
      (match.competitorId !== undefined && r.competitorId !== match.competitorId) ||
      (match.provider !== undefined && r.provider !== match.provider)
    )
      continue;
    out.mentioned += r.mentioned;
    out.cited += r.cited;
    out.bothNamed += r.bothNamed;
    out.brandAhead += r.brandAhead;
    out.competitorAhead += r.competitorAhead;
  }
  return out;
}

/** Answers naming both, who ranks first, and answers naming only one of the two. */
export function headToHead(brandMentioned: number, c: CompetitorCounts) {
  return {
    both: c.bothNamed,
    brandAhead: c.brandAhead,
    competitorAhead: c.competitorAhead,
    onlyBrand: brandMentioned - c.bothNamed,
    onlyCompetitor: c.mentioned - c.bothNamed,
  };
}

/** Untracked names grouped ignoring case and accents, shown in their most frequent spelling (as tallySuggestions). */
function suggestions(rows: readonly { name: string; answers: number }[], tracked: Set<string>) {
  const groups = new Map<string, { count: number; spellings: [string, number][] }>();
  for (const r of rows) {
    const key = fold(r.name);
    if (tracked.has(key)) continue;
    const g = groups.get(key) ?? { count: 0, spellings: [] };
    g.count += r.answers;
    g.spellings.push([r.name, r.answers]);
    groups.set(key, g);
  }
  return [...groups.values()]
    .filter((g) => g.count >= SUGGESTION_MIN_ANSWERS)
    .map((g) => ({
      name: g.spellings.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? '',
      count: g.count,
    }))
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1))
    .slice(0, SUGGESTIONS_LISTED);
}

/**
 * Each competitor's mentions per assistant summed over prompts, keyed
 * `provider|competitorId`: y = Σ mentions, yy = Σ mentions², yn = Σ mentions x
 * that prompt's answers from that assistant that did not fail. Assistants
 * are compared byte-wise (COLLATE "C"): with the database's collation the
 * planner sorted the quarter's 30,000 per-(competitor, prompt, assistant)
 * rows of the reports bench by name to merge them, two to four times slower
 * than this hash join. (As arrays joined in JavaScript, like competitorSums,
 * shipping those rows cost more still.)
 */
async function providerCompetitorSums(db: Db, siteId: number, period: Period, start: string) {
  const { rows } = await sql<{ provider: string; competitorId: number; y: number; yy: number; yn: number }>`
    SELECT c.provider COLLATE "C" AS provider, c.competitor_id, sum(c.mentioned) AS y, sum(c.mentioned::float8 * c.mentioned) AS yy, sum(c.mentioned::float8 * p.a) AS yn
      FROM (${promptProviderCompetitorRows(siteId, period, [start])}) c
      JOIN (${promptProviderRows(siteId, period, [start])}) p ON p.prompt_id = c.prompt_id AND p.provider COLLATE "C" = c.provider COLLATE "C"
     GROUP BY c.provider COLLATE "C", c.competitor_id`.execute(db);
  return new Map(
    rows.map((r) => [`${r.provider}|${r.competitorId}`, { y: Number(r.y), yy: Number(r.yy), yn: Number(r.yn) }]),
  );
}

/** The brand's visibility and share of voice intervals, and its previous visibility's. */
function brandBounds(now: ShareSpread | undefined, before: ShareSpread | undefined) {
  const v = shareBounds(now?.visibility);
  const sov = shareBounds(now?.shareOfVoice);
  const prev = shareBounds(before?.visibility);
  return {
    visibilityLow: v.low,
    visibilityHigh: v.high,
    shareOfVoiceLow: sov.low,
    shareOfVoiceHigh: sov.high,
    previousVisibilityLow: prev.low,
    previousVisibilityHigh: prev.high,
  };
}

/** A competitor's visibility and share of voice intervals (`<share>Low`, `<share>High`) from the site's spread and its own sums. */
function competitorBounds(site: ShareSpread | undefined, c: CompetitorSums | undefined) {
  const spread = competitorShareSpread(site, c);
  const v = shareBounds(spread?.visibility);
  const sov = shareBounds(spread?.shareOfVoice);
  return { visibilityLow: v.low, visibilityHigh: v.high, shareOfVoiceLow: sov.low, shareOfVoiceHigh: sov.high };
}

export async function siteCompetitors(ctx: AppContext, site: SiteRow, query: PeriodQuery) {
  const p = await resolvePeriod(ctx, site.id, query);
  const previousStart = previousPeriod(p.period, p.start);
  const [
    periods,
    competitors,
    counts,
    rows,
    suggestionRows,
    spreads,
    byProvider,
    rivalsNow,
    rivalsBefore,
    rivalsByProvider,
  ] = await Promise.all([
    periodsWithData(ctx.db, site.id, p.period),
    ctx.db.selectFrom('competitors').selectAll().where('siteId', '=', site.id).orderBy('id').execute(),
    siteCountsByPeriod(ctx.db, site.id, p.period, previousStart, p.start),
    competitorRows(ctx.db, site.id, p.period, [previousStart, p.start]),
    ctx.db
      .selectFrom('rollupSuggestionPeriod')
      .select(['name', 'answers'])
      .where('siteId', '=', site.id)
      .where('period', '=', p.period)
      .where('start', '=', p.start)
      .execute(),
    siteSpreadByPeriod(ctx.db, site.id, p.period, previousStart, p.start),
    providerSpread(ctx.db, site.id, p.period, [p.start]),
    competitorSums(ctx.db, site.id, p.period, p.start),
    competitorSums(ctx.db, site.id, p.period, previousStart),
    providerCompetitorSums(ctx.db, site.id, p.period, p.start),
  ]);
  const siteNow = spreads.get(p.start);
  const siteBefore = spreads.get(previousStart);
  const previousBounds = (c: CompetitorSums | undefined) => {
    const b = shareBounds(competitorShareSpread(siteBefore, c)?.visibility);
    return { previousVisibilityLow: b.low, previousVisibilityHigh: b.high };
  };
  const tracked = new Set(
    [site.name, ...site.brandTerms, ...competitors.flatMap((c) => [c.name, ...c.aliases])].map(fold),
  );
  const suggested = suggestions(suggestionRows, tracked);
  const siteSum = (start: string, provider?: string): SiteCounts =>
    counts
      .filter((r) => r.start === start && (provider === undefined || r.provider === provider))
      .reduce((acc, r) => addCounts(acc, r.counts), emptyCounts());
  const now = headline(siteSum(p.start));
  const before = headline(siteSum(previousStart));
  const allMentions = now.mentioned + siteSum(p.start).competitorMentions;

  const list = competitors
    .map((c) => {
      const cur = sumCompetitor(rows, { competitorId: c.id, start: p.start });
      const prev = sumCompetitor(rows, { competitorId: c.id, start: previousStart });
      const vis = visibility(cur.mentioned, now.answered);
      const prevVis = visibility(prev.mentioned, before.answered);
      return {
        id: c.id,
        name: c.name,
        domain: c.domain,
        color: c.color,
        logo: c.logo,
        mentioned: cur.mentioned,
        cited: cur.cited,
        visibility: vis,
        shareOfVoice: shareOfVoice(cur.mentioned, allMentions),
        previousVisibility: prevVis,
        change: vis === null || prevVis === null ? null : round1(vis - prevVis),
        ...competitorBounds(siteNow, rivalsNow.get(c.id) ?? { y: 0, yy: 0, ya: 0, yv: 0 }),
        ...previousBounds(rivalsBefore.get(c.id) ?? { y: 0, yy: 0, ya: 0, yv: 0 }),
        headToHead: headToHead(now.mentioned, cur),
      };
    })
    .sort(
      (a, b) =>
        (b.visibility ?? -1) - (a.visibility ?? -1) ||
        b.mentioned - a.mentioned ||
        a.name.localeCompare(b.name) ||
        a.id - b.id,
    );

  const providers = PROVIDER_KEYS.filter((k) => counts.some((r) => r.start === p.start && r.provider === k)).map(
    (k) => {
      const h = headline(siteSum(p.start, k));
      const answered = byProvider.get(`${p.start}|${k}`)?.visibility;
      const brand = shareBounds(answered);
      return {
        provider: k,
        name: providerEntry(k).name,
        answered: h.answered,
        brand: {
          mentioned: h.mentioned,
          visibility: h.visibility,
          visibilityLow: brand.low,
          visibilityHigh: brand.high,
        },
        competitors: list.map((c) => {
          const m = sumCompetitor(rows, { competitorId: c.id, start: p.start, provider: k }).mentioned;
          const b = shareBounds(against(answered, rivalsByProvider.get(`${k}|${c.id}`)));
          return {
            id: c.id,
            mentioned: m,
            visibility: visibility(m, h.answered),
            visibilityLow: b.low,
            visibilityHigh: b.high,
          };
        }),
      };
    },
  );

  return {
    ...periodEcho(p, periods),
    answered: now.answered,
    brand: {
      name: site.name,
      mentioned: now.mentioned,
      visibility: now.visibility,
      shareOfVoice: now.shareOfVoice,
      previousVisibility: before.visibility,
      ...brandBounds(siteNow, siteBefore),
    },
    competitors: list,
    providers,
    suggestions: suggested,
  };
}
