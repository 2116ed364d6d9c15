import { sql } from 'kysely';
import { clusteredShare, clusterSums, countChange, realChange, type ShareEstimate } from '../../analysis/index.ts';
import { twoProportionPValue } from '../../analysis/intervals.ts';
import type { Db } from '../../db/database.ts';
import {
  bounds,
  estimatesOf,
  realChanges,
  siteSpreadByPeriod,
  type ShareSpread,
  promptChanges,
} from '../reports/index.ts';
import { periodEnd, previousPeriod, type Period } from '../common/index.ts';
import { draft, type EventData, type EventDraft, type EventType } from './event-types.ts';

/**
 * The change events: visibility, share of voice and own citations, prompts
 * won and lost, a competitor overtaking the brand. Each fires only when the
 * change is real by the same tests as the report's (docs/analysis.md
 * "Samples, intervals and real changes"): the report's own functions
 * (`estimatesOf`, `realChanges`, `countChange`, `promptChanges`) over the
 * same per-prompt sums, compared either scan on scan (a finished scan
 * against the site's previous finished scan with the same providers, models
 * and samples) or period on period (a period that ended against the one
 * before). A change within its noise fires nothing.
 */

/** The periods whose ends are compared for alerts: every report period but a day. */
export type AlertPeriod = Exclude<Period, 'day'>;
type Comparison = EventData<'visibility.changed'>['comparison'];

export interface ChangeSite {
  id: number;
  orgId: number;
  name: string;
}

/** One prompt's answers in one scan (or period). */
export interface PromptCounts {
  promptId: number;
  /** Answers that did not fail, naming the brand, linking an own page, brand and competitor mentions, named or cited. */
  a: number;
  m: number;
  c: number;
  v: number;
  named: number;
  /** Answers naming each tracked competitor. */
  competitors: Map<number, number>;
}

/** The spread of the report's three shares over prompts, as the rollup sums give it (spread.ts `spreadOf`). */
export function spreadOfPrompts(rows: readonly PromptCounts[]): ShareSpread {
  return {
    visibility: clusterSums(rows.map((r) => [r.m, r.a])),
    ownCitationRate: clusterSums(rows.map((r) => [r.c, r.a])),
    shareOfVoice: clusterSums(rows.map((r) => [r.m, r.v])),
  };
}

const pct = (share: number) => Math.round(share * 1000) / 10;
const round1 = (n: number) => Math.round(n * 10) / 10;
const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** The z-test's p-value behind realChange, for the payload. */
function pValueOf(now: ShareEstimate, before: ShareEstimate): number {
  return round4(
    twoProportionPValue(
      now.share * now.effectiveN,
      now.effectiveN,
      before.share * before.effectiveN,
      before.effectiveN,
    ) ?? 1,
  );
}

function measured(e: ShareEstimate, answers: number, mentions?: number) {
  const b = bounds(e);
  return {
    value: pct(e.share),
    low: b.low ?? 0,
    high: b.high ?? 0,
    answers,
    ...(mentions !== undefined && { mentions }),
  };
}

const METRICS = [
  { type: 'visibility.changed', metric: 'visibility', real: 'visibilityReal' },
  { type: 'share_of_voice.changed', metric: 'shareOfVoice', real: 'shareOfVoiceReal' },
  { type: 'citations.changed', metric: 'ownCitationRate', real: 'ownCitationRateReal' },
] as const;

export interface ChangeContext {
  site: ChangeSite;
  comparison: Comparison;
  /** Dedupe key prefix: `scan:<id>` or `<siteId>:<period>:<start>`. */
  key: string;
  link: string;
  listened: Set<EventType>;
}

/** visibility / share_of_voice / citations .changed, for each share whose move is real. */
export function metricDrafts(
  c: ChangeContext,
  before: ShareSpread | undefined,
  after: ShareSpread | undefined,
): EventDraft[] {
  if (!before || !after) return [];
  const was = estimatesOf(before);
  const now = estimatesOf(after);
  const real = realChanges(now, was);
  const out: EventDraft[] = [];
  for (const m of METRICS) {
    const b = was[m.metric];
    const a = now[m.metric];
    if (!c.listened.has(m.type) || real[m.real] !== true || !a || !b) continue;
    const voice = m.metric === 'shareOfVoice';
    const beforeSide = measured(b, before.visibility.n, voice ? before.shareOfVoice.n : undefined);
    const afterSide = measured(a, after.visibility.n, voice ? after.shareOfVoice.n : undefined);
    const change = round1(afterSide.value - beforeSide.value);
    out.push(
      draft(m.type, c.site.orgId, c.site.id, `${m.type}:${c.key}`, {
        projectId: c.site.id,
        projectName: c.site.name,
        link: c.link,
        comparison: c.comparison,
        metric: m.metric,
        before: beforeSide,
        after: afterSide,
        change,
        direction: a.share >= b.share ? 'up' : 'down',
        pValue: pValueOf(a, b),
      } as EventData<typeof m.type>),
    );
  }
  return out;
}

interface PromptMove {
  id: number;
  text: string;
  before: { named: number; answered: number };
  after: { named: number; answered: number };
  pValue: number;
  won: boolean;
}

function promptDrafts(c: ChangeContext, moves: readonly PromptMove[]): EventDraft[] {
  return moves.flatMap((p) => {
    const type = p.won ? ('prompt.won' as const) : ('prompt.lost' as const);
    if (!c.listened.has(type)) return [];
    return [
      draft(type, c.site.orgId, c.site.id, `${type}:${c.key}:prompt:${p.id}`, {
        projectId: c.site.id,
        projectName: c.site.name,
        link: c.link,
        comparison: c.comparison,
        prompt: { id: p.id, text: p.text },
        before: p.before,
        after: p.after,
        pValue: p.pValue,
      }),
    ];
  });
}

/** Prompts won or lost for real between two scans: the rule and the test of the report's `changes` (prompt-changes.ts). */
function scanPromptMoves(
  before: readonly PromptCounts[],
  after: readonly PromptCounts[],
  texts: Map<number, string>,
): PromptMove[] {
  const was = new Map(before.map((r) => [r.promptId, r]));
  const moves: PromptMove[] = [];
  for (const now of after) {
    const then = was.get(now.promptId);
    // Only prompts with answers that did not all fail in both scans count.
    if (!then || then.a === 0 || now.a === 0) continue;
    const wonOrLost = (then.named === 0) !== (now.named === 0);
    if (!wonOrLost) continue;
    const test = countChange({
      named: now.named,
      answered: now.a,
      previousNamed: then.named,
      previousAnswered: then.a,
    });
    if (!test?.real) continue;
    moves.push({
      id: now.promptId,
      text: texts.get(now.promptId) ?? '',
      before: { named: then.named, answered: then.a },
      after: { named: now.named, answered: now.a },
      pValue: test.pValue,
      won: now.named > 0,
    });
  }
  return moves;
}

/** Per prompt: answers that did not fail, naming the brand, naming this competitor. */
type PairRows = readonly { a: number; m: number; y: number }[];

/**
 * competitor.overtook: the brand was at least level with the competitor (its
 * visibility no lower) and is now behind, and the brand's share of the two's
 * mentions fell by more than its noise (the report's real-change test on
 * that share, as the competitor detail pairs them).
 */
function overtookDrafts(
  c: ChangeContext,
  competitors: readonly { id: number; name: string }[],
  before: Map<number, PairRows>,
  after: Map<number, PairRows>,
): EventDraft[] {
  if (!c.listened.has('competitor.overtook')) return [];
  const out: EventDraft[] = [];
  for (const k of competitors) {
    const was = before.get(k.id);
    const now = after.get(k.id);
    if (!was || !now) continue;
    const side = (rows: PairRows) => ({
      brand: clusteredShare(clusterSums(rows.map((r) => [r.m, r.a]))),
      competitor: clusteredShare(clusterSums(rows.map((r) => [r.y, r.a]))),
      voice: clusteredShare(clusterSums(rows.map((r) => [r.m, r.m + r.y]))),
      answers: rows.reduce((n, r) => n + r.a, 0),
    });
    const b = side(was);
    const a = side(now);
    if (!b.brand || !b.competitor || !a.brand || !a.competitor || !a.voice || !b.voice) continue;
    const overtaken =
      b.brand.share >= b.competitor.share && a.competitor.share > a.brand.share && a.voice.share < b.voice.share;
    if (!overtaken || realChange(a.voice, b.voice) !== true) continue;
    const plain = (e: ShareEstimate) => {
      const m = measured(e, 0);
      return { value: m.value, low: m.low, high: m.high };
    };
    out.push(
      draft('competitor.overtook', c.site.orgId, c.site.id, `competitor.overtook:${c.key}:competitor:${k.id}`, {
        projectId: c.site.id,
        projectName: c.site.name,
        link: c.link,
        comparison: c.comparison,
        competitor: { id: k.id, name: k.name },
        before: { brand: plain(b.brand), competitor: plain(b.competitor), answers: b.answers },
        after: { brand: plain(a.brand), competitor: plain(a.competitor), answers: a.answers },
        brandShareOfPair: { before: plain(b.voice), after: plain(a.voice), pValue: pValueOf(a.voice, b.voice) },
      }),
    );
  }
  return out;
}

function pairRows(rows: readonly PromptCounts[], competitors: readonly { id: number }[]): Map<number, PairRows> {
  return new Map(
    competitors.map((k) => [k.id, rows.map((r) => ({ a: r.a, m: r.m, y: r.competitors.get(k.id) ?? 0 }))]),
  );
}

const CHANGE_TYPES: readonly EventType[] = [
  'visibility.changed',
  'share_of_voice.changed',
  'citations.changed',
  'prompt.won',
  'prompt.lost',
  'competitor.overtook',
];

/** Whether anyone listens for a change event (else nothing is read). */
export const wantsChanges = (listened: Set<EventType>) => CHANGE_TYPES.some((t) => listened.has(t));

/** Each prompt's counts in each of the given scans (their answers live in the partition of the month each scan was created in). */
export async function scanPromptCounts(
  db: Db,
  scans: readonly { id: number; month: string }[],
): Promise<Map<number, PromptCounts[]>> {
  const ids = scans.map((s) => s.id);
  const months = [...new Set(scans.map((s) => s.month))];
  const [counts, named] = await Promise.all([
    sql<{ scanId: number; promptId: number; a: number; m: number; c: number; v: number; named: number }>`
      SELECT a.scan_id, f.prompt_id,
             count(*) FILTER (WHERE f.verdict <> 'failed')::int AS a, count(*) FILTER (WHERE f.mentioned)::int AS m,
             count(*) FILTER (WHERE f.own_cited)::int AS c,
             (count(*) FILTER (WHERE f.mentioned) + coalesce(sum(cardinality(f.competitors_named)), 0))::int AS v,
             count(*) FILTER (WHERE f.verdict IN ('cited', 'named'))::int AS named
        FROM answers a JOIN answer_facts f ON f.answer_id = a.id AND f.month = a.month
       WHERE a.scan_id = ANY(${ids}::int[]) AND a.month = ANY(${months}::date[])
       GROUP BY 1, 2`.execute(db),
    sql<{ scanId: number; promptId: number; competitorId: number; y: number }>`
      SELECT a.scan_id, f.prompt_id, x.id AS competitor_id, count(*)::int AS y
        FROM answers a JOIN answer_facts f ON f.answer_id = a.id AND f.month = a.month
             CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.competitors_named) AS id) x
       WHERE a.scan_id = ANY(${ids}::int[]) AND a.month = ANY(${months}::date[])
       GROUP BY 1, 2, 3`.execute(db),
  ]);
  const out = new Map<number, PromptCounts[]>(ids.map((id) => [id, []]));
  const byKey = new Map<string, PromptCounts>();
  for (const r of counts.rows) {
    const row: PromptCounts = {
      promptId: r.promptId,
      a: r.a,
      m: r.m,
      c: r.c,
      v: r.v,
      named: r.named,
      competitors: new Map(),
    };
    out.get(r.scanId)?.push(row);
    byKey.set(`${r.scanId}|${r.promptId}`, row);
  }
  for (const r of named.rows) byKey.get(`${r.scanId}|${r.promptId}`)?.competitors.set(r.competitorId, r.y);
  return out;
}

export interface ScanSide {
  id: number;
  month: string;
  finishedAt: Date;
}

/** Every change event between a finished scan and the previous comparable one. */
export async function scanChangeDrafts(
  db: Db,
  site: ChangeSite,
  before: ScanSide,
  after: ScanSide,
  link: string,
  listened: Set<EventType>,
): Promise<EventDraft[]> {
  if (!wantsChanges(listened)) return [];
  const [counts, competitors] = await Promise.all([
    scanPromptCounts(db, [before, after]),
    db.selectFrom('competitors').select(['id', 'name']).where('siteId', '=', site.id).orderBy('id').execute(),
  ]);
  const was = counts.get(before.id) ?? [];
  const now = counts.get(after.id) ?? [];
  const c: ChangeContext = {
    site,
    comparison: {
      kind: 'scan',
      before: { scanId: before.id, finishedAt: before.finishedAt },
      after: { scanId: after.id, finishedAt: after.finishedAt },
    },
    key: `scan:${after.id}`,
    link,
    listened,
  };
  let moves: PromptMove[] = [];
  if (listened.has('prompt.won') || listened.has('prompt.lost')) {
    const candidates = scanPromptMoves(was, now, new Map());
    const texts = candidates.length
      ? new Map(
          (
            await db
              .selectFrom('prompts')
              .select(['id', 'text'])
              .where(
                'id',
                'in',
                candidates.map((m) => m.id),
              )
              .execute()
          ).map((p) => [p.id, p.text]),
        )
      : new Map<number, string>();
    moves = candidates.map((m) => ({ ...m, text: texts.get(m.id) ?? '' }));
  }
  return [
    ...metricDrafts(c, was.length ? spreadOfPrompts(was) : undefined, now.length ? spreadOfPrompts(now) : undefined),
    ...promptDrafts(c, moves),
    ...overtookDrafts(c, competitors, pairRows(was, competitors), pairRows(now, competitors)),
  ];
}

/** Per prompt of two periods: answers that did not fail, naming the brand, and naming each competitor (rollups). */
async function periodPairRows(db: Db, siteId: number, period: AlertPeriod, starts: readonly [string, string]) {
  const [prompts, named] = await Promise.all([
    db
      .selectFrom('rollupPromptPeriod')
      .select(['start', 'promptId', 'answers', 'failed', 'mentioned'])
      .where('siteId', '=', siteId)
      .where('period', '=', period)
      .where('start', 'in', [...starts])
      .execute(),
    db
      .selectFrom('rollupPromptCompetitorPeriod')
      .select(['start', 'promptId', 'competitorId', 'mentioned'])
      .where('siteId', '=', siteId)
      .where('period', '=', period)
      .where('start', 'in', [...starts])
      .execute(),
  ]);
  const out = new Map<string, PromptCounts[]>(starts.map((s) => [s, []]));
  const byKey = new Map<string, PromptCounts>();
  for (const r of prompts) {
    const row: PromptCounts = {
      promptId: r.promptId,
      a: r.answers - r.failed,
      m: r.mentioned,
      c: 0,
      v: 0,
      named: 0,
      competitors: new Map(),
    };
    out.get(r.start)?.push(row);
    byKey.set(`${r.start}|${r.promptId}`, row);
  }
  for (const r of named) byKey.get(`${r.start}|${r.promptId}`)?.competitors.set(r.competitorId, r.mentioned);
  return out;
}

/** Every change event between a period that ended (`start`) and the one before, from the report's own reads. */
export async function periodChangeDrafts(
  db: Db,
  site: ChangeSite,
  period: AlertPeriod,
  start: string,
  link: string,
  listened: Set<EventType>,
): Promise<EventDraft[]> {
  if (!wantsChanges(listened)) return [];
  const previous = previousPeriod(period, start);
  const c: ChangeContext = {
    site,
    comparison: {
      kind: 'period',
      period,
      before: { start: previous, end: periodEnd(period, previous) },
      after: { start, end: periodEnd(period, start) },
    },
    key: `${site.id}:${period}:${start}`,
    link,
    listened,
  };
  const [spreads, prompts, competitors, pairs] = await Promise.all([
    siteSpreadByPeriod(db, site.id, period, previous, start),
    listened.has('prompt.won') || listened.has('prompt.lost')
      ? promptChanges(db, site.id, period, start)
      : Promise.resolve({ won: [], lost: [] }),
    db.selectFrom('competitors').select(['id', 'name']).where('siteId', '=', site.id).orderBy('id').execute(),
    listened.has('competitor.overtook')
      ? periodPairRows(db, site.id, period, [previous, start])
      : Promise.resolve(new Map<string, PromptCounts[]>()),
  ]);
  const moves: PromptMove[] = [...prompts.won, ...prompts.lost]
    .filter((p) => p.real)
    .map((p) => ({
      id: p.id,
      text: p.text,
      before: { named: p.previousNamed, answered: p.previousAnswered },
      after: { named: p.named, answered: p.answered },
      pValue: p.pValue,
      won: p.verdict === 'cited' || p.verdict === 'named',
    }));
  return [
    ...metricDrafts(c, spreads.get(previous), spreads.get(start)),
    ...promptDrafts(c, moves),
    ...overtookDrafts(
      c,
      competitors,
      pairRows(pairs.get(previous) ?? [], competitors),
      pairRows(pairs.get(start) ?? [], competitors),
    ),
  ];
}
