import { hash, randomBytes } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import { normaliseUrl } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { isPage } from '../../logs/paths.ts';
import type { LineError, TrafficEvent } from '../../logs/reader.ts';
import { addPeriods, periodStart, type Period } from '../common/index.ts';
import type { LogImportRecord } from './log-imports.ts';

/**
 * Writes a batch of traffic events, and the import's progress, in one
 * transaction, so a crash leaves either all of a batch or none of it:
 *
 * 1. each request is hashed (SHA-256, its first 64 bits) with the salt of
 *    its site and day, and the hashes are inserted into `traffic_seen`;
 *    only the requests whose hash is new are counted (the same request
 *    imported twice, or twice in one log, counts once);
 * 2. their pages get ids (`traffic_paths`, one row a path);
 * 3. their day counters are added, per (agent, page) and per agent, and
 *    per (assistant, landing page) for referrals.
 *
 * Pages are counted per day only: a week's, month's or quarter's pages are
 * summed from its days when the import ends (`summarizePeriods`), where
 * writing them would cost as many rows again as the days' (a log of a
 * month holds about as many (agent, page) keys per week as per day). The
 * per-agent and per-assistant counters of weeks, months and quarters (a few
 * rows a period, which trends read) are summed in memory over the whole
 * import and written at its end, or sooner past a bound of keys. The import
 * is marked `rollups_pending` meanwhile: one that stops before writing them
 * has them rebuilt from its days (`rebuildPeriods`).
 *
 * No address, User-Agent or Referer is written: only the hash, which
 * without the rest of the line and the salt names nobody.
 */

/** Paths whose ids are kept in memory per import, at most (then forgotten and read again). */
const PATH_CACHE_MAX = 100_000;
/** Pages listed per agent (and per assistant) in the report, and in its page lists. */
export const TOP_PAGES = 10;
export const LISTED = 50;
/** Week, month and quarter keys (per agent, per assistant and landing page) held before they are written. */
const COARSE_MAX = 200_000;
const COARSE = ['week', 'month', 'quarter'] as const satisfies readonly Period[];

export interface BatchProgress {
  events: TrafficEvent[];
  /** Totals of the import so far (what it had before this run included). */
  lines: number;
  skipped: number;
  other: number;
  bytes: number;
  resumeLine: number;
  errors: LineError[];
  formats: string[];
}

/** [hits, verified, spoofed, s2xx, s3xx, s4xx, s5xx] */
type Counters = number[];
const COUNTERS = ['hits', 'verified', 'spoofed', 's2xx', 's3xx', 's4xx', 's5xx'] as const;

/** Counters by key: `period|start|name|pathId` (pathId 0 for an agent's own row). */
type Sums = Map<string, Counters>;

function add(map: Sums, key: string, c: Counters) {
  const have = map.get(key);
  if (!have) map.set(key, [...c]);
  else for (let i = 0; i < c.length; i++) (have[i] as number) += c[i] as number;
}

const keyOf = (period: Period, start: string, name: string, pathId: number) =>
  `${period}\u0001${start}\u0001${name}\u0001${pathId}`;

/**
 * Array parameters written as PostgreSQL array literals: node-postgres
 * escapes an array element by element, which was a tenth of the import's
 * time for batches of 20,000 rows. Numbers and dates need no quotes.
 */
const plainArray = (xs: readonly (number | string)[]) => `{${xs.join(',')}}`;
const SAFE_TEXT = /^[A-Za-z0-9._:/-]+$/;
const textArray = (xs: readonly string[]) =>
  `{${xs.map((x) => (SAFE_TEXT.test(x) && x.toLowerCase() !== 'null' ? x : `"${x.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;

function columns(map: Sums) {
  const keys = [...map.keys()].map((k) => k.split('\u0001') as [Period, string, string, string]);
  const values = [...map.values()];
  return {
    period: textArray(keys.map((k) => k[0])),
    start: plainArray(keys.map((k) => k[1])),
    name: textArray(keys.map((k) => k[2])),
    pathId: plainArray(keys.map((k) => k[3])),
    col: (i: number) => plainArray(values.map((v) => v[i] ?? 0)),
  };
}

/** Adds counter rows (explicit period and start) to one of the counter tables. */
async function upsert(db: Executor, siteId: number, table: 'pages' | 'agents' | 'referrals', map: Sums): Promise<void> {
  if (map.size === 0) return;
  const c = columns(map);
  if (table === 'referrals') {
    await sql`
      INSERT INTO traffic_referral_period AS r (site_id, period, start, assistant, path_id, visits)
      SELECT ${siteId}::int, t.* FROM unnest(${c.period}::text[], ${c.start}::date[], ${c.name}::text[], ${c.pathId}::int[], ${c.col(0)}::int[]) AS t
       ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (site_id, period, start, assistant, path_id) DO UPDATE SET visits = r.visits + excluded.visits`.execute(
      db,
    );
    return;
  }
  const counters = sql.join(COUNTERS.map((_, i) => sql`${c.col(i)}::int[]`));
  const set = (alias: string) => sql.raw(COUNTERS.map((k) => `${k} = ${alias}.${k} + excluded.${k}`).join(', '));
  if (table === 'pages')
    await sql`
      INSERT INTO traffic_page_period AS p (site_id, period, start, agent, path_id, ${sql.raw(COUNTERS.join(', '))})
      SELECT ${siteId}::int, t.* FROM unnest(${c.period}::text[], ${c.start}::date[], ${c.name}::text[], ${c.pathId}::int[], ${counters}) AS t
       ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (site_id, period, start, agent, path_id) DO UPDATE SET ${set('p')}`.execute(db);
  else
    await sql`
      INSERT INTO traffic_agent_period AS a (site_id, period, start, agent, ${sql.raw(COUNTERS.join(', '))})
      SELECT ${siteId}::int, t.period, t.start, t.name, t.hits, t.verified, t.spoofed, t.s2xx, t.s3xx, t.s4xx, t.s5xx
        FROM unnest(${c.period}::text[], ${c.start}::date[], ${c.name}::text[], ${c.pathId}::int[], ${counters})
             AS t(period, start, name, path_id, hits, verified, spoofed, s2xx, s3xx, s4xx, s5xx)
       ORDER BY 1, 2, 3, 4
      ON CONFLICT (site_id, period, start, agent) DO UPDATE SET ${set('a')}`.execute(db);
}

/** A batch's transaction does not wait for its commit to reach the disk: a crash loses the batch and its resume point together. */
const relaxedCommit = (db: Executor) => sql`SET LOCAL synchronous_commit = off`.execute(db);

export class TrafficWriter {
  counted: number;
  duplicates: number;
  agentHits: number;
  referrals: number;
  firstDay: string | null;
  lastDay: string | null;
  private readonly salts = new Map<string, string>();
  private readonly pathIds = new Map<string, number>();
  /** Week, month and quarter sums of committed batches, not yet written, and the last day each page was crawled. */
  private coarse = { agents: new Map() as Sums, referrals: new Map() as Sums };
  private crawled = new Map<number, string>();
  /** Every period (`period|start`) the import added to, days included: their summaries are written at its end. */
  private touched = new Set<string>();
  private readonly starts = new Map<string, string[]>();
  private readonly ctx: AppContext;
  private readonly site: { id: number; domain: string };
  private readonly importId: number;

  constructor(ctx: AppContext, site: { id: number; domain: string }, importId: number, base: LogImportRecord) {
    this.ctx = ctx;
    this.site = site;
    this.importId = importId;
    this.counted = Number(base.counted);
    this.duplicates = Number(base.duplicates);
    this.agentHits = Number(base.agentHits);
    this.referrals = Number(base.referrals);
    this.firstDay = base.firstDay;
    this.lastDay = base.lastDay;
  }

  async write(batch: BatchProgress): Promise<void> {
    const { totals, coarse } = await this.ctx.db.transaction().execute(async (trx) => {
      await relaxedCommit(trx);
      const fresh = batch.events.length ? await this.newEvents(trx, batch.events) : [];
      const coarse = fresh.length ? await this.addCounters(trx, fresh) : null;
      const t = {
        counted: this.counted + fresh.length,
        duplicates: this.duplicates + batch.events.length - fresh.length,
        agentHits: this.agentHits,
        referrals: this.referrals,
      };
      for (const e of fresh) {
        if (e.kind === 'agent') t.agentHits++;
        else t.referrals++;
      }
      let { firstDay, lastDay } = this;
      for (const e of batch.events) {
        if (firstDay === null || e.day < firstDay) firstDay = e.day;
        if (lastDay === null || e.day > lastDay) lastDay = e.day;
      }
      await trx
        .updateTable('crawlerLogImports')
        .set({
          ...t,
          firstDay,
          lastDay,
          lines: batch.lines,
          skipped: batch.skipped,
          other: batch.other,
          bytes: batch.bytes,
          resumeLine: batch.resumeLine,
          errors: JSON.stringify(batch.errors),
          formats: batch.formats,
          progressedAt: this.ctx.clock.now(),
          ...(coarse && { rollupsPending: true }),
        })
        .where('id', '=', this.importId)
        .execute();
      return { totals: { ...t, firstDay, lastDay }, coarse };
    });
    // Only once committed: a batch rolled back counted nothing.
    Object.assign(this, totals);
    if (coarse) {
      for (const k of ['agents', 'referrals'] as const)
        for (const [key, c] of coarse.sums[k]) add(this.coarse[k], key, c);
      for (const key of [...coarse.sums.agents.keys(), ...coarse.sums.referrals.keys()])
        this.touched.add(key.split('\u0001', 2).join('|'));
      for (const day of coarse.days) this.touched.add(`day|${day}`);
      for (const [pathId, day] of coarse.crawled)
        if ((this.crawled.get(pathId) ?? '') < day) this.crawled.set(pathId, day);
      if (this.coarse.agents.size + this.coarse.referrals.size > COARSE_MAX) await this.flushPeriods();
    }
  }

  /** Writes the week, month and quarter sums held and the summaries of every period touched, and clears the import's pending mark. */
  async flushPeriods(): Promise<void> {
    const held = this.coarse;
    const touched = [...this.touched].map((k) => k.split('|') as [Period, string]);
    await this.ctx.db.transaction().execute(async (trx) => {
      await relaxedCommit(trx);
      await upsert(trx, this.site.id, 'agents', held.agents);
      await upsert(trx, this.site.id, 'referrals', held.referrals);
      if (this.crawled.size) {
        await sql`
          UPDATE traffic_paths p SET last_crawled = greatest(p.last_crawled, u.day)
            FROM unnest(${[...this.crawled.keys()]}::int[], ${[...this.crawled.values()]}::date[]) AS u(id, day)
           WHERE p.id = u.id AND p.last_crawled IS DISTINCT FROM greatest(p.last_crawled, u.day)`.execute(trx);
      }
      await summarizePeriods(trx, this.site.id, touched);
      await trx
        .updateTable('crawlerLogImports')
        .set({ rollupsPending: false })
        .where('id', '=', this.importId)
        .execute();
    });
    this.coarse = { agents: new Map(), referrals: new Map() };
    this.crawled = new Map();
    this.touched = new Set();
  }

  /** The week, month and quarter holding a day. */
  private startsOf(day: string): string[] {
    let starts = this.starts.get(day);
    if (!starts) this.starts.set(day, (starts = COARSE.map((p) => periodStart(p, day))));
    return starts;
  }

  /** The salt of each day, made the first time a day is seen. */
  private async saltsFor(db: Executor, days: string[]): Promise<void> {
    const missing = days.filter((d) => !this.salts.has(d));
    if (missing.length === 0) return;
    await sql`INSERT INTO traffic_salts (site_id, day, salt)
              SELECT ${this.site.id}, d, s FROM unnest(${missing}::date[], ${missing.map(() => randomBytes(16).toString('hex'))}::text[]) AS u(d, s)
              ON CONFLICT DO NOTHING`.execute(db);
    const rows = await db
      .selectFrom('trafficSalts')
      .select(['day', 'salt'])
      .where('siteId', '=', this.site.id)
      .where('day', 'in', missing)
      .execute();
    for (const r of rows) this.salts.set(r.day, r.salt);
  }

  /**
   * The events whose request was never counted before, in their order; a repeat within the batch is a duplicate too.
   * A hash is the first 64 bits of the digest read as a signed bigint, as `('x' || hex)::bit(64)::bigint` reads them.
   */
  private async newEvents(db: Executor, events: TrafficEvent[]): Promise<TrafficEvent[]> {
    await this.saltsFor(db, [...new Set(events.map((e) => e.day))]);
    // Hex then BigInt: a Buffer digest a request cost twice the time.
    const hashes = events.map((e) =>
      BigInt.asIntN(
        64,
        BigInt(`0x${hash('sha256', `${this.salts.get(e.day) ?? ''}${e.identity}`, 'hex').slice(0, 16)}`),
      ).toString(),
    );
    const inserted = await sql<{ day: string; hash: string }>`
      INSERT INTO traffic_seen (site_id, day, hash)
      SELECT ${this.site.id}, u.day, u.hash FROM unnest(${plainArray(events.map((e) => e.day))}::date[], ${plainArray(hashes)}::bigint[]) AS u(day, hash)
      ON CONFLICT DO NOTHING
      RETURNING day, hash::text AS hash`.execute(db);
    if (inserted.rows.length === events.length) return events;
    const fresh = new Set(inserted.rows.map((r) => `${r.day}|${r.hash}`));
    return events.filter((e, i) => fresh.delete(`${e.day}|${hashes[i]}`));
  }

  /** Ids of the batch's paths, new ones added with their normalized URL. */
  private async idsFor(db: Executor, paths: string[]): Promise<void> {
    if (this.pathIds.size + paths.length > PATH_CACHE_MAX) this.pathIds.clear();
    const missing = paths.filter((p) => !this.pathIds.has(p));
    if (missing.length === 0) return;
    const urls = missing.map(
      (p) => normaliseUrl(`https://${this.site.domain}${p}`)?.url ?? `https://${this.site.domain}${p}`,
    );
    const rows = await sql<{ id: number; path: string }>`
      WITH input AS (SELECT * FROM unnest(${missing}::text[], ${urls}::text[], ${missing.map(isPage)}::boolean[]) AS u(path, url, is_page)),
      added AS (
        INSERT INTO traffic_paths (site_id, path, normalized_url, is_page) SELECT ${this.site.id}, path, url, is_page FROM input
        ON CONFLICT (site_id, path) DO NOTHING RETURNING id, path)
      SELECT id, path FROM added
      UNION ALL
      SELECT p.id, p.path FROM traffic_paths p JOIN input USING (path) WHERE p.site_id = ${this.site.id}`.execute(db);
    for (const r of rows.rows) this.pathIds.set(r.path, r.id);
  }

  /** Writes the day counters of new events; answers their week, month and quarter sums per agent and assistant, for the writer to hold. */
  private async addCounters(db: Executor, events: TrafficEvent[]) {
    await this.idsFor(db, [...new Set(events.map((e) => e.path))]);
    const day = { pages: new Map() as Sums, agents: new Map() as Sums, referrals: new Map() as Sums };
    const crawled = new Map<number, string>();
    for (const e of events) {
      const pathId = this.pathIds.get(e.path) as number;
      if (e.kind === 'referral') {
        add(day.referrals, keyOf('day', e.day, e.name, pathId), [1]);
        continue;
      }
      const cls = Math.floor(e.status / 100);
      const c = [
        1,
        e.verification === 'verified' ? 1 : 0,
        e.verification === 'spoofed' ? 1 : 0,
        cls === 2 ? 1 : 0,
        cls === 3 ? 1 : 0,
        cls === 4 ? 1 : 0,
        cls === 5 ? 1 : 0,
      ];
      add(day.pages, keyOf('day', e.day, e.name, pathId), c);
      add(day.agents, keyOf('day', e.day, e.name, 0), c);
      if (e.verification !== 'spoofed' && (crawled.get(pathId) ?? '') < e.day) crawled.set(pathId, e.day);
    }
    await upsert(db, this.site.id, 'pages', day.pages);
    await upsert(db, this.site.id, 'agents', day.agents);
    await upsert(db, this.site.id, 'referrals', day.referrals);
    const sums = { agents: new Map() as Sums, referrals: new Map() as Sums };
    for (const k of ['agents', 'referrals'] as const)
      for (const [key, c] of day[k]) {
        const [, start, name, pathId] = key.split('\u0001') as [string, string, string, string];
        const starts = this.startsOf(start);
        COARSE.forEach((period, i) => add(sums[k], keyOf(period, starts[i] as string, name, Number(pathId)), c));
      }
    return { sums, crawled, days: [...new Set(events.map((e) => e.day))] };
  }
}

/**
 * The summaries the report reads, for the periods given, from their days'
 * page rows: per page all agents together (`traffic_period_pages`), and
 * per agent its pages and ten most fetched pages (on
 * `traffic_agent_period`). Written when an import ends: the report reads a
 * few thousand rows a period, not every (agent, page). Run in a
 * transaction (its working table is dropped at commit).
 */
export async function summarizePeriods(
  db: Executor,
  siteId: number,
  periods: readonly (readonly [Period, string])[],
): Promise<void> {
  if (periods.length === 0) return;
  const chosen = sql`(period, start) IN (SELECT * FROM unnest(${periods.map((p) => p[0])}::text[], ${periods.map((p) => p[1])}::date[]))`;
  // Sorts and hashes of a few hundred thousand rows stay in memory.
  await sql`SET LOCAL work_mem = '64MB'`.execute(db);
  // Each period's (agent, page) counters, summed from its days: one read of the days per kind of period. Text
  // sorted byte-wise (the names are ASCII): the database's collation compared them ten times slower.
  await sql`DROP TABLE IF EXISTS pg_temp.traffic_summary_rows`.execute(db);
  await sql`
    CREATE TEMP TABLE traffic_summary_rows (
      period text COLLATE "C", start date, agent text COLLATE "C", path_id integer,
      ${sql.raw(COUNTERS.map((k) => `${k} integer`).join(', '))}
    ) ON COMMIT DROP`.execute(db);
  for (const kind of ['day', ...COARSE] as const) {
    const starts = [...new Set(periods.filter((p) => p[0] === kind).map((p) => p[1]))].sort();
    const first = starts[0];
    const last = starts.at(-1);
    if (!first || !last) continue;
    const startOfDay = kind === 'day' ? sql`start` : startOf(kind, sql`start`);
    await sql`
      INSERT INTO traffic_summary_rows
      SELECT ${kind}, ${startOfDay}, agent, path_id, ${sql.raw(COUNTERS.map((k) => `sum(${k})`).join(', '))}
        FROM traffic_page_period
       WHERE site_id = ${siteId} AND period = 'day' AND start >= ${first}::date AND start < ${addPeriods(kind, last, 1)}::date
         AND ${startOfDay} = ANY (${plainArray(starts)}::date[])
       GROUP BY 1, 2, 3, 4`.execute(db);
  }
  await sql`DELETE FROM traffic_period_pages WHERE site_id = ${siteId} AND ${chosen}`.execute(db);
  // A page's agents, most hits first: the rows come sorted so, one sort for all pages, not one a page.
  await sql`
    INSERT INTO traffic_period_pages (site_id, period, start, path_id, path, normalized_url, is_page, hits, spoofed, s2xx, s3xx, s4xx, s5xx, agents)
    SELECT ${siteId}::int, x.period, x.start, x.path_id, t.path, t.normalized_url, t.is_page, x.hits, x.spoofed, x.s2xx, x.s3xx, x.s4xx, x.s5xx, x.agents
      FROM (SELECT period, start, path_id, sum(hits) AS hits, sum(spoofed) AS spoofed, sum(s2xx) AS s2xx, sum(s3xx) AS s3xx, sum(s4xx) AS s4xx, sum(s5xx) AS s5xx,
                   coalesce(array_agg(agent) FILTER (WHERE hits > spoofed), '{}') AS agents
              FROM (SELECT * FROM traffic_summary_rows ORDER BY period, start, path_id, hits - spoofed DESC, agent) s
             GROUP BY 1, 2, 3) x
      JOIN traffic_paths t ON t.id = x.path_id`.execute(db);
  await sql`
    UPDATE traffic_agent_period a SET pages = x.pages, top = x.top
      FROM (SELECT r.period, r.start, r.agent, max(r.pages) AS pages,
                   coalesce(jsonb_agg(jsonb_build_object('path', t.path, 'url', t.normalized_url, 'hits', r.hits, 's2xx', r.s2xx, 's3xx', r.s3xx, 's4xx', r.s4xx, 's5xx', r.s5xx)
                                      ORDER BY r.n) FILTER (WHERE r.n <= ${TOP_PAGES}), '[]') AS top
              FROM (SELECT period, start, agent, path_id, hits, s2xx, s3xx, s4xx, s5xx,
                           row_number() OVER (PARTITION BY period, start, agent ORDER BY hits DESC, path_id) AS n,
                           count(*) OVER (PARTITION BY period, start, agent) AS pages
                      FROM traffic_summary_rows) r
              LEFT JOIN traffic_paths t ON t.id = r.path_id AND r.n <= ${TOP_PAGES}
             GROUP BY r.period, r.start, r.agent) x
     WHERE a.site_id = ${siteId} AND a.period = x.period AND a.start = x.start AND a.agent = x.agent`.execute(db);
  await sql`DELETE FROM traffic_period_totals WHERE site_id = ${siteId} AND ${chosen}`.execute(db);
  await sql`
    WITH chosen AS (SELECT * FROM unnest(${periods.map((p) => p[0])}::text[], ${periods.map((p) => p[1])}::date[]) AS c(period, start)),
    pages AS (SELECT period, start, count(*) AS pages FROM traffic_period_pages WHERE site_id = ${siteId} AND ${chosen} GROUP BY 1, 2),
    status AS (
      SELECT period, start,
             jsonb_agg(jsonb_build_object('path', path, 'url', normalized_url, 'hits', hits, 's3xx', s3xx, 's4xx', s4xx, 's5xx', s5xx) ORDER BY n) AS list
        FROM (SELECT *, row_number() OVER (PARTITION BY period, start ORDER BY s4xx + s5xx DESC, s3xx DESC, path) AS n
                FROM traffic_period_pages WHERE site_id = ${siteId} AND ${chosen} AND s3xx + s4xx + s5xx > 0) x
       WHERE n <= ${LISTED} GROUP BY 1, 2),
    r AS (SELECT r.period, r.start, r.assistant, r.path_id, r.visits, t.path, t.normalized_url
            FROM traffic_referral_period r JOIN traffic_paths t ON t.id = r.path_id WHERE r.site_id = ${siteId} AND (r.period, r.start) IN (SELECT * FROM chosen)),
    assistants AS (
      SELECT period, start, jsonb_agg(jsonb_build_object('assistant', assistant, 'visits', visits, 'pages', top) ORDER BY visits DESC, assistant) AS list
        FROM (SELECT period, start, assistant, sum(visits) AS visits,
                     jsonb_agg(jsonb_build_object('path', path, 'url', normalized_url, 'visits', visits) ORDER BY n) FILTER (WHERE n <= ${TOP_PAGES}) AS top
                FROM (SELECT *, row_number() OVER (PARTITION BY period, start, assistant ORDER BY visits DESC, path_id) AS n FROM r) x
               GROUP BY 1, 2, 3) y
       GROUP BY 1, 2),
    landing AS (
      SELECT period, start, jsonb_agg(jsonb_build_object('path', path, 'url', normalized_url, 'visits', visits, 'assistants', assistants) ORDER BY n) AS list
        FROM (SELECT *, row_number() OVER (PARTITION BY period, start ORDER BY visits DESC, path) AS n
                FROM (SELECT period, start, path, normalized_url, sum(visits) AS visits,
                             jsonb_agg(jsonb_build_object('assistant', assistant, 'visits', visits) ORDER BY visits DESC, assistant) AS assistants
                        FROM r GROUP BY 1, 2, 3, 4) z) x
       WHERE n <= ${LISTED} GROUP BY 1, 2)
    INSERT INTO traffic_period_totals (site_id, period, start, pages, status_pages, referral_assistants, referral_pages)
    SELECT ${siteId}::int, c.period, c.start, coalesce(p.pages, 0), coalesce(s.list, '[]'), coalesce(a.list, '[]'), coalesce(l.list, '[]')
      FROM chosen c
      LEFT JOIN pages p USING (period, start)
      LEFT JOIN status s USING (period, start)
      LEFT JOIN assistants a USING (period, start)
      LEFT JOIN landing l USING (period, start)`.execute(db);
}

/** The first day of the period holding `day`, in SQL. */
const startOf = (period: Period, day: RawBuilder<unknown>) =>
  sql`date_trunc(${sql.lit(period)}, ${day}::timestamp)::date`;

/**
 * Recomputes the week, month and quarter counters (per agent, per
 * assistant and landing page) of every period touching [firstDay, lastDay]
 * from the day counters, and their summaries: what an import that stopped
 * with sums still in memory left unwritten.
 */
export async function rebuildPeriods(db: Executor, siteId: number, firstDay: string, lastDay: string): Promise<void> {
  const sums = sql.raw(COUNTERS.map((k) => `sum(${k})`).join(', '));
  for (const period of COARSE) {
    const from = startOf(period, sql`${firstDay}::date`);
    const to = startOf(period, sql`${lastDay}::date`);
    const range = sql`start >= ${from} AND start <= ${to}`;
    const days = sql`period = 'day' AND ${startOf(period, sql`start`)} >= ${from} AND ${startOf(period, sql`start`)} <= ${to}`;
    await sql`DELETE FROM traffic_agent_period WHERE site_id = ${siteId} AND period = ${period} AND ${range}`.execute(
      db,
    );
    await sql`INSERT INTO traffic_agent_period (site_id, period, start, agent, ${sql.raw(COUNTERS.join(', '))})
              SELECT site_id, ${period}, ${startOf(period, sql`start`)}, agent, ${sums} FROM traffic_agent_period
               WHERE site_id = ${siteId} AND ${days} GROUP BY 1, 2, 3, 4`.execute(db);
    await sql`DELETE FROM traffic_referral_period WHERE site_id = ${siteId} AND period = ${period} AND ${range}`.execute(
      db,
    );
    await sql`INSERT INTO traffic_referral_period (site_id, period, start, assistant, path_id, visits)
              SELECT site_id, ${period}, ${startOf(period, sql`start`)}, assistant, path_id, sum(visits) FROM traffic_referral_period
               WHERE site_id = ${siteId} AND ${days} GROUP BY 1, 2, 3, 4, 5`.execute(db);
  }
  const range = sql`site_id = ${siteId} AND start >= date_trunc('quarter', ${firstDay}::date)::date AND start <= ${lastDay}::date AND (period <> 'day' OR start >= ${firstDay}::date)`;
  const touched = await sql<{ period: Period; start: string }>`
    SELECT period, start FROM traffic_agent_period WHERE ${range}
    UNION SELECT period, start FROM traffic_referral_period WHERE ${range}`.execute(db);
  await summarizePeriods(
    db,
    siteId,
    touched.rows.map((r) => [r.period, r.start] as const),
  );
}

/** Rebuilds what an import left pending (it stopped between its last batch and its period sums), and clears the mark. */
export async function settlePendingPeriods(ctx: AppContext, importId: number): Promise<void> {
  const row = await ctx.db
    .selectFrom('crawlerLogImports')
    .select(['siteId', 'firstDay', 'lastDay', 'rollupsPending'])
    .where('id', '=', importId)
    .executeTakeFirst();
  if (!row?.rollupsPending) return;
  await ctx.db.transaction().execute(async (trx) => {
    if (row.firstDay && row.lastDay) await rebuildPeriods(trx, row.siteId, row.firstDay, row.lastDay);
    await trx.updateTable('crawlerLogImports').set({ rollupsPending: false }).where('id', '=', importId).execute();
  });
}
