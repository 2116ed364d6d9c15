import { sql } from 'kysely';
import { ambiguityOf, foldName, QUOTE_MAX, quoteAround, wilson } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import type { SiteRow } from '../../db/schema.ts';
import { round1 } from '../common/index.ts';
import type { NAME_FIELDS } from './responses.ts';
import type { NameListQuery } from './schemas.ts';

export interface NameInUse {
  name: string;
  field: (typeof NAME_FIELDS)[number];
  competitorId: number | null;
}

/** Every name the site tracks, in the order a customer set them: its name, brand terms, then each competitor and its aliases. */
export async function namesInUse(
  db: Executor,
  site: Pick<SiteRow, 'id' | 'name' | 'brandTerms'>,
): Promise<NameInUse[]> {
  const competitors = await db
    .selectFrom('competitors')
    .select(['id', 'name', 'aliases'])
    .where('siteId', '=', site.id)
    .orderBy('id')
    .execute();
  return [
    { name: site.name, field: 'name', competitorId: null },
    ...site.brandTerms.map((name) => ({ name, field: 'brandTerms' as const, competitorId: null })),
    ...competitors.flatMap((c) => [
      { name: c.name, field: 'competitor' as const, competitorId: c.id },
      ...c.aliases.map((name) => ({ name, field: 'alias' as const, competitorId: c.id })),
    ]),
  ];
}

/** Examples of each kind a name shows. */
const EXAMPLES = 3;

interface Example {
  kind: 'counted' | 'refused';
  answerId: number;
  month: string;
  day: string;
  start: number;
  end: number;
}

interface ReadingRow {
  name: string;
  countedIn: number;
  refusedIn: number;
  examples: Example[] | null;
}

/**
 * GET /projects/:id/names: the names in use, a page at a time, with whether it is ambiguous
 * (and why), in how many stored answers it counted and was refused, the
 * newest examples each way, and its precision from readers' corrections.
 *
 * Counts and examples come from the facts' name readings (one pass over
 * the site's facts; facts written before readings were kept count as
 * `unread`). Stored readings spell a name as the brand book did; they are
 * matched to the names in use folded, as the book compares names. An
 * example's quote is cut from its answer's text where the reading found the
 * name (readings keep offsets, not quotes: src/analysis/readings.ts).
 *
 * Precision: each correction records whether the reading, without it,
 * agreed with the reader: it had counted the name in that answer and the
 * reader says it is meant, or had refused every occurrence and the reader
 * says it is not. value = agreed / corrections, with a 95% Wilson
 * interval, as percentages; null without corrections.
 */
export async function listNames(ctx: AppContext, site: SiteRow, query: NameListQuery) {
  const all = await namesInUse(ctx.db, site);
  const inUse = all.slice((query.page - 1) * query.perPage, query.page * query.perPage);
  const [readings, unread, feedback] = await Promise.all([
    sql<ReadingRow>`
      WITH r AS MATERIALIZED (
        SELECT f.answer_id, f.month, f.day, e->>'name' AS name, (e->>'counted')::int AS counted, (e->>'refused')::int AS refused,
               e->'countedAt' AS counted_at, e->'refusedAt' AS refused_at
          FROM answer_facts f CROSS JOIN LATERAL jsonb_array_elements(f.name_readings) e
         WHERE f.site_id = ${site.id} AND f.name_readings IS NOT NULL),
      ex AS (
        SELECT * FROM (
          SELECT name, 'counted' AS kind, answer_id, month, day, counted_at AS at,
                 row_number() OVER (PARTITION BY name ORDER BY day DESC, answer_id DESC) AS n
            FROM r WHERE counted > 0 AND counted_at IS NOT NULL
          UNION ALL
          SELECT name, 'refused', answer_id, month, day, refused_at,
                 row_number() OVER (PARTITION BY name ORDER BY day DESC, answer_id DESC)
            FROM r WHERE refused > 0 AND refused_at IS NOT NULL) y
         WHERE n <= ${EXAMPLES})
      SELECT c.name, c.counted_in, c.refused_in,
             (SELECT jsonb_agg(jsonb_build_object('kind', kind, 'answerId', answer_id, 'month', month, 'day', day, 'start', (at->>0)::int, 'end', (at->>1)::int))
                FROM ex WHERE ex.name = c.name) AS examples
        FROM (SELECT name, count(*) FILTER (WHERE counted > 0)::int AS counted_in, count(*) FILTER (WHERE refused > 0)::int AS refused_in
                FROM r GROUP BY name) c`.execute(ctx.db),
    ctx.db
      .selectFrom('answerFacts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .where('nameReadings', 'is', null)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('mentionFeedback')
      .select([
        'nameKey',
        (eb) => eb.fn.countAll<number>().filterWhere('readingAgreed', '=', true).as('confirmed'),
        (eb) => eb.fn.countAll<number>().as('total'),
      ])
      .where('siteId', '=', site.id)
      .groupBy('nameKey')
      .execute(),
  ]);

  // Spellings of one folded name (the book spelled it another way before a change) are one name.
  const byKey = new Map<string, { countedIn: number; refusedIn: number; examples: Example[] }>();
  for (const r of readings.rows) {
    const key = foldName(r.name);
    const acc = byKey.get(key) ?? { countedIn: 0, refusedIn: 0, examples: [] };
    acc.countedIn += r.countedIn;
    acc.refusedIn += r.refusedIn;
    acc.examples.push(...(r.examples ?? []));
    byKey.set(key, acc);
  }
  const newest = (xs: readonly Example[], kind: Example['kind']) =>
    xs
      .filter((x) => x.kind === kind)
      .sort((a, b) => (a.day === b.day ? b.answerId - a.answerId : a.day < b.day ? 1 : -1))
      .slice(0, EXAMPLES);
  const shown = inUse.flatMap((n) => {
    const r = byKey.get(foldName(n.name));
    return r === undefined ? [] : [...newest(r.examples, 'counted'), ...newest(r.examples, 'refused')];
  });
  const texts = await examplesText(ctx.db, site.id, shown);
  const quoted = (xs: readonly Example[]) =>
    xs.map((x) => ({ answerId: x.answerId, quote: quoteAround(texts.get(x.answerId) ?? '', x.start, x.end) }));
  const precisionOf = new Map(
    feedback.map((f) => [f.nameKey, { confirmed: Number(f.confirmed), total: Number(f.total) }]),
  );

  return {
    names: inUse.map((n) => {
      const key = foldName(n.name);
      const read = byKey.get(key);
      const { ambiguous, reason } = ambiguityOf(n.name);
      return {
        ...n,
        ambiguous,
        reason,
        countedIn: read?.countedIn ?? 0,
        refusedIn: read?.refusedIn ?? 0,
        examples: {
          counted: quoted(newest(read?.examples ?? [], 'counted')),
          refused: quoted(newest(read?.examples ?? [], 'refused')),
        },
        precision: precision(precisionOf.get(key) ?? { confirmed: 0, total: 0 }),
      };
    }),
    unread: Number(unread.n),
    total: all.length,
    page: query.page,
    perPage: query.perPage,
  };
}

/**
 * The texts the examples quote, each only as far as its last example needs
 * (QUOTE_MAX past it, and more: `left` counts characters, offsets count
 * UTF-16 units, so the prefix is never shorter than needed). Answers can be
 * 200 KB; names sit mostly near the start.
 */
async function examplesText(db: Executor, siteId: number, examples: readonly Example[]): Promise<Map<number, string>> {
  const upTo = new Map<number, { month: string; chars: number }>();
  for (const x of examples)
    upTo.set(x.answerId, { month: x.month, chars: Math.max(upTo.get(x.answerId)?.chars ?? 0, x.end + 2 * QUOTE_MAX) });
  if (upTo.size === 0) return new Map();
  const ids = [...upTo.keys()];
  const { rows } = await sql<{ id: number; text: string | null }>`
    SELECT a.id, left(a.text, x.chars) AS text
      FROM unnest(${ids}::bigint[], ${ids.map((id) => upTo.get(id)?.month)}::date[], ${ids.map((id) => upTo.get(id)?.chars)}::int[]) AS x(id, month, chars)
      JOIN answers a ON a.id = x.id AND a.month = x.month AND a.site_id = ${siteId}`.execute(db);
  return new Map(rows.map((r) => [r.id, r.text ?? '']));
}

function precision({ confirmed, total }: { confirmed: number; total: number }) {
  const interval = wilson(confirmed, total);
  const pct = (v: number) => round1(v * 100);
  return {
    value: total > 0 ? pct(confirmed / total) : null,
    low: interval ? pct(interval.low) : null,
    high: interval ? pct(interval.high) : null,
    corrections: total,
    confirmed,
    rejected: total - confirmed,
  };
}
