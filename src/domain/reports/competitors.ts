import { fold } from '../../analysis/fold.ts';
import { shareOfVoice, visibility } from '../../analysis/index.ts';
import { PROVIDER_KEYS, providerEntry } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { SiteRow } from '../../db/schema.ts';
import { previousPeriod, type Period, type PeriodQuery } from './periods.ts';
import { addCounts, emptyCounts, headline, periodEcho, periodsWithData, resolvePeriod, round1, siteCountsByPeriod, type SiteCounts } from './base.ts';

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
    if (r.start !== match.start || (match.competitorId !== undefined && r.competitorId !== match.competitorId) || (match.provider !== undefined && r.provider !== match.provider))
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
  return { both: c.bothNamed, brandAhead: c.brandAhead, competitorAhead: c.competitorAhead, onlyBrand: brandMentioned - c.bothNamed, onlyCompetitor: c.mentioned - c.bothNamed };
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
    .map((g) => ({ name: g.spellings.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? '', count: g.count }))
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1))
    .slice(0, SUGGESTIONS_LISTED);
}

export async function siteCompetitors(ctx: AppContext, site: SiteRow, query: PeriodQuery) {
  const p = await resolvePeriod(ctx, site.id, query);
  const previousStart = previousPeriod(p.period, p.start);
  const [periods, competitors, counts, rows, suggestionRows] = await Promise.all([
    periodsWithData(ctx.db, site.id, p.period),
    ctx.db.selectFrom('competitors').selectAll().where('siteId', '=', site.id).orderBy('id').execute(),
    siteCountsByPeriod(ctx.db, site.id, p.period, previousStart, p.start),
    competitorRows(ctx.db, site.id, p.period, [previousStart, p.start]),
    ctx.db.selectFrom('rollupSuggestionPeriod').select(['name', 'answers']).where('siteId', '=', site.id).where('period', '=', p.period).where('start', '=', p.start).execute(),
  ]);
  const tracked = new Set([site.name, ...site.brandTerms, ...competitors.flatMap((c) => [c.name, ...c.aliases])].map(fold));
  const suggested = suggestions(suggestionRows, tracked);
  const siteSum = (start: string, provider?: string): SiteCounts =>
    counts.filter((r) => r.start === start && (provider === undefined || r.provider === provider)).reduce((acc, r) => addCounts(acc, r.counts), emptyCounts());
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
        headToHead: headToHead(now.mentioned, cur),
      };
    })
    .sort((a, b) => (b.visibility ?? -1) - (a.visibility ?? -1) || b.mentioned - a.mentioned || a.name.localeCompare(b.name) || a.id - b.id);

  const providers = PROVIDER_KEYS.filter((k) => counts.some((r) => r.start === p.start && r.provider === k)).map((k) => {
    const h = headline(siteSum(p.start, k));
    return {
      provider: k,
      name: providerEntry(k).name,
      answered: h.answered,
      brand: { mentioned: h.mentioned, visibility: h.visibility },
      competitors: list.map((c) => {
        const m = sumCompetitor(rows, { competitorId: c.id, start: p.start, provider: k }).mentioned;
        return { id: c.id, mentioned: m, visibility: visibility(m, h.answered) };
      }),
    };
  });

  return {
    ...periodEcho(p, periods),
    answered: now.answered,
    brand: { name: site.name, mentioned: now.mentioned, visibility: now.visibility, shareOfVoice: now.shareOfVoice, previousVisibility: before.visibility },
    competitors: list,
    providers,
    suggestions: suggested,
  };
}
