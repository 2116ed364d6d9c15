import { shareOfVoice, visibility } from '../../analysis/index.ts';
import { answerSource, findModel, isProviderKey, PROVIDER_KEYS, providerEntry } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { SiteRow } from '../../db/schema.ts';
import { periodWindow, type Period, type PeriodQuery, round1 } from '../common/index.ts';
import {
  addCounts,
  change,
  emptyCounts,
  headline,
  periodEcho,
  periodsWithData,
  resolvePeriod,
  siteCountsByPeriod,
  type SiteCounts,
} from './base.ts';
import { promptChanges } from './prompt-changes.ts';
import { topSources } from './sources.ts';
import {
  bounds,
  competitorShareSpread,
  competitorSums,
  estimatesOf,
  providerSpread,
  realChanges,
  shareIntervals,
  siteSpreadByPeriod,
  type ShareEstimates,
  type ShareSpread,
} from './spread.ts';

/** GET /projects/:id/report: the site's numbers for one period against the one before. */

/** Site counters over a window of periods: totals and per provider for each period start. */
export async function windowCounts(db: Db, siteId: number, period: Period, window: string[]) {
  const rows = await siteCountsByPeriod(db, siteId, period, window[0] as string, window[window.length - 1] as string);
  const byStart = new Map(window.map((s) => [s, { total: emptyCounts(), providers: new Map<string, SiteCounts>() }]));
  for (const r of rows) {
    const point = byStart.get(r.start);
    if (!point) continue;
    addCounts(point.total, r.counts);
    point.providers.set(r.provider, addCounts(point.providers.get(r.provider) ?? emptyCounts(), r.counts));
  }
  return byStart;
}

async function competitorMentions(db: Db, siteId: number, period: Period, starts: string[]) {
  const rows = await db
    .selectFrom('rollupCompetitorPeriod')
    .select(['competitorId', 'start', (eb) => eb.fn.sum<number>('mentioned').as('mentioned')])
    .where('siteId', '=', siteId)
    .where('period', '=', period)
    .where('start', 'in', starts)
    .groupBy(['competitorId', 'start'])
    .execute();
  return new Map(rows.map((r) => [`${r.competitorId}|${r.start}`, Number(r.mentioned)]));
}

/** Variant A: what the numbers were measured on. */
async function scope(db: Db, site: SiteRow, period: Period, start: string) {
  const [models, questions] = await Promise.all([
    db
      .selectFrom('rollupModelPeriod')
      .select(['provider', 'model', 'answers'])
      .where('siteId', '=', site.id)
      .where('period', '=', period)
      .where('start', '=', start)
      .execute(),
    db
      .selectFrom('rollupPromptPeriod')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .where('period', '=', period)
      .where('start', '=', start)
      .executeTakeFirstOrThrow(),
  ]);
  const answers = models.reduce((n, m) => n + m.answers, 0);
  const assistants = PROVIDER_KEYS.flatMap((key) => {
    const mine = models
      .filter((m) => m.provider === key)
      .sort((a, b) => b.answers - a.answers || (a.model < b.model ? -1 : 1));
    if (mine.length === 0) return [];
    const list = mine.map((m) => {
      const entry = findModel(key, m.model);
      // A model outside the catalog (answers imported from another tool) was read from an unknown place.
      const readFrom = entry ? answerSource(entry) : null;
      return { model: m.model, readFrom, answers: m.answers };
    });
    const readFrom = [...new Set(list.flatMap((m) => (m.readFrom ? [m.readFrom] : [])))];
    return [
      {
        provider: key,
        name: providerEntry(key).name,
        answers: list.reduce((n, m) => n + m.answers, 0),
        readFrom,
        models: list,
      },
    ];
  });
  const n = Number(questions.n);
  return {
    assistants,
    questions: n,
    answersPerQuestion: n > 0 ? round1(answers / n) : null,
    place: site.location,
    language: site.language,
  };
}

/** A headline with its shares' 95% intervals (see ./spread.ts). */
export function headlineWithIntervals(c: SiteCounts, e: ShareEstimates) {
  const h = headline(c);
  return { ...h, ...shareIntervals(h.ownCited, h.answered, e) };
}

/** Current minus previous, with whether each share's move is larger than its noise. */
function changeWithTests(
  current: ReturnType<typeof headlineWithIntervals>,
  previous: ReturnType<typeof headlineWithIntervals>,
  now: ShareEstimates,
  before: ShareEstimates,
) {
  const diff =
    current.ownCitationRate === null || previous.ownCitationRate === null
      ? null
      : round1(current.ownCitationRate - previous.ownCitationRate);
  return { ...change(current, previous), ownCitationRate: diff, ...realChanges(now, before) };
}

export async function siteReport(ctx: AppContext, site: SiteRow, query: PeriodQuery) {
  const p = await resolvePeriod(ctx, site.id, query);
  const window = periodWindow(p.period, p.start);
  const previousStart = window[window.length - 2] as string;
  const [periods, counts, competitors, mentions, changes, sources, measured, spreads, byProvider, rivals] =
    await Promise.all([
      periodsWithData(ctx.db, site.id, p.period),
      windowCounts(ctx.db, site.id, p.period, window),
      ctx.db.selectFrom('competitors').select(['id', 'name']).where('siteId', '=', site.id).orderBy('id').execute(),
      competitorMentions(ctx.db, site.id, p.period, [previousStart, p.start]),
      promptChanges(ctx.db, site.id, p.period, p.start),
      topSources(ctx.db, site.id, p.period, p.start, 10),
      ctx.config.apiVariant.includes('A') ? scope(ctx.db, site, p.period, p.start) : Promise.resolve(null),
      siteSpreadByPeriod(ctx.db, site.id, p.period, window[0] as string, p.start),
      // Every period of the window: the chart series carries each assistant's bands too.
      providerSpread(ctx.db, site.id, p.period, window),
      competitorSums(ctx.db, site.id, p.period, p.start),
    ]);
  // No period with data: the site was never scanned.
  if (periods.length === 0) return { ...periodEcho(p, periods), report: null };
  const now = counts.get(p.start) ?? { total: emptyCounts(), providers: new Map<string, SiteCounts>() };
  const before = counts.get(previousStart) ?? { total: emptyCounts(), providers: new Map<string, SiteCounts>() };
  const nowSure = estimatesOf(spreads.get(p.start));
  const beforeSure = estimatesOf(spreads.get(previousStart));
  const current = headlineWithIntervals(now.total, nowSure);
  const previous = headlineWithIntervals(before.total, beforeSure);
  const rivalBounds = (id: number | null) => {
    const spread: ShareSpread | undefined =
      id === null ? spreads.get(p.start) : competitorShareSpread(spreads.get(p.start), rivals.get(id));
    const e = estimatesOf(spread);
    const v = bounds(e.visibility);
    const sov = bounds(e.shareOfVoice);
    return { visibilityLow: v.low, visibilityHigh: v.high, shareOfVoiceLow: sov.low, shareOfVoiceHigh: sov.high };
  };

  const allMentions = now.total.mentioned + now.total.competitorMentions;
  const ranking = [
    {
      name: site.name,
      kind: 'brand' as const,
      competitorId: null as number | null,
      mentioned: current.mentioned,
      previousMentioned: previous.mentioned,
      visibility: current.visibility,
    },
    ...competitors.map((c) => {
      const m = mentions.get(`${c.id}|${p.start}`) ?? 0;
      return {
        name: c.name,
        kind: 'competitor' as const,
        competitorId: c.id as number | null,
        mentioned: m,
        previousMentioned: mentions.get(`${c.id}|${previousStart}`) ?? 0,
        visibility: visibility(m, current.answered),
      };
    }),
  ]
    .sort(
      (a, b) =>
        (b.visibility ?? -1) - (a.visibility ?? -1) ||
        b.mentioned - a.mentioned ||
        (a.kind === 'brand' ? -1 : b.kind === 'brand' ? 1 : a.name.localeCompare(b.name)),
    )
    .map((r, i) => ({
      rank: i + 1,
      name: r.name,
      kind: r.kind,
      competitorId: r.competitorId,
      mentioned: r.mentioned,
      visibility: r.visibility,
      shareOfVoice: shareOfVoice(r.mentioned, allMentions),
      previousVisibility: visibility(r.previousMentioned, previous.answered),
      ...rivalBounds(r.competitorId),
    }));

  const providers = PROVIDER_KEYS.filter((k) => now.providers.has(k) || before.providers.has(k)).map((k) => {
    const curSure = estimatesOf(byProvider.get(`${p.start}|${k}`));
    const prevSure = estimatesOf(byProvider.get(`${previousStart}|${k}`));
    const cur = headlineWithIntervals(now.providers.get(k) ?? emptyCounts(), curSure);
    const prev = headlineWithIntervals(before.providers.get(k) ?? emptyCounts(), prevSure);
    return {
      provider: k,
      name: providerEntry(k).name,
      ...cur,
      previous: prev,
      change: changeWithTests(cur, prev, curSure, prevSure),
    };
  });

  const series = window.map((start) => {
    const point = counts.get(start);
    const h = headlineWithIntervals(point?.total ?? emptyCounts(), estimatesOf(spreads.get(start)));
    const listed = [...(point?.providers ?? new Map<string, SiteCounts>())].filter(([k]) => isProviderKey(k));
    const visibilities = Object.fromEntries(listed.map(([k, c]) => [k, headline(c).visibility])) as Record<
      string,
      number | null
    >;
    // Each assistant's shares with their intervals, as the overall point has them.
    const providerShares = Object.fromEntries(
      listed.map(([k, c]) => {
        const x = headlineWithIntervals(c, estimatesOf(byProvider.get(`${start}|${k}`)));
        return [
          k,
          {
            answered: x.answered,
            visibility: x.visibility,
            visibilityLow: x.visibilityLow,
            visibilityHigh: x.visibilityHigh,
            ownCitationRate: x.ownCitationRate,
            ownCitationRateLow: x.ownCitationRateLow,
            ownCitationRateHigh: x.ownCitationRateHigh,
            shareOfVoice: x.shareOfVoice,
            shareOfVoiceLow: x.shareOfVoiceLow,
            shareOfVoiceHigh: x.shareOfVoiceHigh,
          },
        ];
      }),
    );
    return { start, ...h, providers: visibilities, providerShares };
  });

  return {
    ...periodEcho(p, periods),
    report: {
      previousStart,
      current,
      previous,
      change: changeWithTests(current, previous, nowSure, beforeSure),
      ranking,
      providers,
      changes,
      topSources: sources,
      series,
      ...(measured && { scope: measured }),
    },
  };
}
