import { hash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { normaliseUrl } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { isPage } from '../../logs/paths.ts';
import type { LineError, TrafficEvent } from '../../logs/reader.ts';
import type { ImportRecord } from './imports.ts';

/**
 * Writes a batch of traffic events, and the import's progress, in one
 * transaction, so a crash leaves either all of a batch or none of it:
 *
 * 1. each request is hashed (SHA-256, its first 64 bits) with the salt of
 *    its site and day, and the hashes are inserted into `traffic_seen`;
 *    only the requests whose hash is new are counted (the same request
 *    imported twice, or twice in one log, counts once);
 * 2. their pages get ids (`traffic_paths`, one row a path);
 * 3. the counters are added to every period holding the day (day, week,
 *    month, quarter), per (agent, page) and per agent, and per (assistant,
 *    landing page) for referrals.
 *
 * No address, User-Agent or Referer is written: only the hash, which
 * without the rest of the line and the salt names nobody.
 */

/** Paths whose ids are kept in memory per import, at most (then forgotten and read again). */
const PATH_CACHE_MAX = 100_000;

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

type Counters = [hits: number, verified: number, spoofed: number, s2xx: number, s3xx: number, s4xx: number, s5xx: number];

const PERIODS = sql`CROSS JOIN LATERAL (VALUES ('day'::text, t.day),
                                               ('week', date_trunc('week', t.day::timestamp)::date),
                                               ('month', date_trunc('month', t.day::timestamp)::date),
                                               ('quarter', date_trunc('quarter', t.day::timestamp)::date)) AS k(period, start)`;

export class TrafficWriter {
  counted: number;
  duplicates: number;
  agentHits: number;
  referrals: number;
  firstDay: string | null;
  lastDay: string | null;
  private readonly salts = new Map<string, string>();
  private readonly pathIds = new Map<string, number>();
  private readonly ctx: AppContext;
  private readonly site: { id: number; domain: string };
  private readonly importId: number;

  constructor(ctx: AppContext, site: { id: number; domain: string }, importId: number, base: ImportRecord) {
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
    const totals = await this.ctx.db.transaction().execute(async (trx) => {
      const fresh = batch.events.length ? await this.newEvents(trx, batch.events) : [];
      if (fresh.length) await this.addCounters(trx, fresh);
      const t = { counted: this.counted + fresh.length, duplicates: this.duplicates + batch.events.length - fresh.length, agentHits: this.agentHits, referrals: this.referrals };
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
        })
        .where('id', '=', this.importId)
        .execute();
      return { ...t, firstDay, lastDay };
    });
    // Only once committed: a batch rolled back counted nothing.
    Object.assign(this, totals);
  }

  /** The salt of each day, made the first time a day is seen. */
  private async saltsFor(db: Executor, days: string[]): Promise<void> {
    const missing = days.filter((d) => !this.salts.has(d));
    if (missing.length === 0) return;
    await sql`INSERT INTO traffic_salts (site_id, day, salt)
              SELECT ${this.site.id}, d, s FROM unnest(${missing}::date[], ${missing.map(() => randomBytes(16).toString('hex'))}::text[]) AS u(d, s)
              ON CONFLICT DO NOTHING`.execute(db);
    const rows = await db.selectFrom('trafficSalts').select(['day', 'salt']).where('siteId', '=', this.site.id).where('day', 'in', missing).execute();
    for (const r of rows) this.salts.set(r.day, r.salt);
  }

  /** The events whose request was never counted before, in their order; a repeat within the batch is a duplicate too. */
  private async newEvents(db: Executor, events: TrafficEvent[]): Promise<TrafficEvent[]> {
    await this.saltsFor(db, [...new Set(events.map((e) => e.day))]);
    const hashes = events.map((e) => hash('sha256', `${this.salts.get(e.day) ?? ''}${e.identity}`, 'hex').slice(0, 16));
    const inserted = await sql<{ day: string; h: string }>`
      INSERT INTO traffic_seen (site_id, day, hash)
      SELECT ${this.site.id}, u.day, ('x' || u.h)::bit(64)::bigint FROM unnest(${events.map((e) => e.day)}::date[], ${hashes}::text[]) AS u(day, h)
      ON CONFLICT DO NOTHING
      RETURNING day, lpad(to_hex(hash), 16, '0') AS h`.execute(db);
    const fresh = new Set(inserted.rows.map((r) => `${r.day}|${r.h}`));
    return events.filter((e, i) => fresh.delete(`${e.day}|${hashes[i]}`));
  }

  /** Ids of the batch's paths, new ones added with their normalized URL. */
  private async idsFor(db: Executor, paths: string[]): Promise<void> {
    if (this.pathIds.size + paths.length > PATH_CACHE_MAX) this.pathIds.clear();
    const missing = paths.filter((p) => !this.pathIds.has(p));
    if (missing.length === 0) return;
    const urls = missing.map((p) => normaliseUrl(`https://${this.site.domain}${p}`)?.url ?? `https://${this.site.domain}${p}`);
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

  private async addCounters(db: Executor, events: TrafficEvent[]): Promise<void> {
    await this.idsFor(db, [...new Set(events.map((e) => e.path))]);
    const pages = new Map<string, Counters>();
    const visits = new Map<string, number>();
    const crawled = new Map<number, string>();
    for (const e of events) {
      const pathId = this.pathIds.get(e.path) as number;
      const key = `${e.day}\u0001${e.name}\u0001${pathId}`;
      if (e.kind === 'referral') {
        visits.set(key, (visits.get(key) ?? 0) + 1);
        continue;
      }
      let c = pages.get(key);
      if (!c) pages.set(key, (c = [0, 0, 0, 0, 0, 0, 0]));
      c[0]++;
      if (e.verification === 'verified') c[1]++;
      else if (e.verification === 'spoofed') c[2]++;
      const cls = Math.floor(e.status / 100);
      if (cls >= 2 && cls <= 5) c[cls + 1] = (c[cls + 1] as number) + 1;
      if (e.verification !== 'spoofed' && (crawled.get(pathId) ?? '') < e.day) crawled.set(pathId, e.day);
    }
    const split = (key: string) => key.split('\u0001') as [string, string, string];
    if (pages.size) {
      const keys = [...pages.keys()].map(split);
      const values = [...pages.values()];
      const col = (i: number) => values.map((v) => v[i]);
      await sql`
        WITH t AS (
          SELECT * FROM unnest(${keys.map((k) => k[0])}::date[], ${keys.map((k) => k[1])}::text[], ${keys.map((k) => Number(k[2]))}::int[],
                               ${col(0)}::int[], ${col(1)}::int[], ${col(2)}::int[], ${col(3)}::int[], ${col(4)}::int[], ${col(5)}::int[], ${col(6)}::int[])
            AS t(day, agent, path_id, hits, verified, spoofed, s2xx, s3xx, s4xx, s5xx)),
        k AS (SELECT t.*, k.period, k.start FROM t ${PERIODS}),
        pages AS (
          INSERT INTO traffic_page_period AS p (site_id, period, start, agent, path_id, hits, verified, spoofed, s2xx, s3xx, s4xx, s5xx)
          SELECT ${this.site.id}, period, start, agent, path_id, sum(hits), sum(verified), sum(spoofed), sum(s2xx), sum(s3xx), sum(s4xx), sum(s5xx)
            FROM k GROUP BY period, start, agent, path_id ORDER BY period, start, agent, path_id
          ON CONFLICT (site_id, period, start, agent, path_id) DO UPDATE SET
            hits = p.hits + excluded.hits, verified = p.verified + excluded.verified, spoofed = p.spoofed + excluded.spoofed,
            s2xx = p.s2xx + excluded.s2xx, s3xx = p.s3xx + excluded.s3xx, s4xx = p.s4xx + excluded.s4xx, s5xx = p.s5xx + excluded.s5xx
          RETURNING 1),
        agents AS (
          INSERT INTO traffic_agent_period AS a (site_id, period, start, agent, hits, verified, spoofed, s2xx, s3xx, s4xx, s5xx)
          SELECT ${this.site.id}, period, start, agent, sum(hits), sum(verified), sum(spoofed), sum(s2xx), sum(s3xx), sum(s4xx), sum(s5xx)
            FROM k GROUP BY period, start, agent ORDER BY period, start, agent
          ON CONFLICT (site_id, period, start, agent) DO UPDATE SET
            hits = a.hits + excluded.hits, verified = a.verified + excluded.verified, spoofed = a.spoofed + excluded.spoofed,
            s2xx = a.s2xx + excluded.s2xx, s3xx = a.s3xx + excluded.s3xx, s4xx = a.s4xx + excluded.s4xx, s5xx = a.s5xx + excluded.s5xx
          RETURNING 1)
        SELECT 1`.execute(db);
    }
    if (visits.size) {
      const keys = [...visits.keys()].map(split);
      await sql`
        WITH t AS (SELECT * FROM unnest(${keys.map((k) => k[0])}::date[], ${keys.map((k) => k[1])}::text[], ${keys.map((k) => Number(k[2]))}::int[], ${[...visits.values()]}::int[])
                     AS t(day, assistant, path_id, visits))
        INSERT INTO traffic_referral_period AS r (site_id, period, start, assistant, path_id, visits)
        SELECT ${this.site.id}, k.period, k.start, t.assistant, t.path_id, sum(t.visits) FROM t ${PERIODS}
         GROUP BY k.period, k.start, t.assistant, t.path_id ORDER BY 2, 3, 4, 5
        ON CONFLICT (site_id, period, start, assistant, path_id) DO UPDATE SET visits = r.visits + excluded.visits`.execute(db);
    }
    if (crawled.size) {
      await sql`
        UPDATE traffic_paths p SET last_crawled = greatest(p.last_crawled, u.day)
          FROM unnest(${[...crawled.keys()]}::int[], ${[...crawled.values()]}::date[]) AS u(id, day)
         WHERE p.id = u.id AND p.last_crawled IS DISTINCT FROM greatest(p.last_crawled, u.day)`.execute(db);
    }
  }
}
