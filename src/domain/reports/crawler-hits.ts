import { sql } from 'kysely';
import { z } from 'zod';
import type { Db } from '../../db/database.ts';
import { count, day } from '../common/index.ts';
import type { Period } from '../common/index.ts';

/**
 * Crawler traffic per period, for the trends (one item per period of the
 * window) and the share page: AI agents' hits (spoofed ones apart) and the
 * visits assistants sent. Read from the per-agent and referral rollups: a
 * few rows a period.
 */

export const crawlerHitsItem = z.object({
  start: day,
  hits: count.describe('AI agents’ hits in the period, spoofed ones included'),
  spoofed: count,
  referrals: count.describe('Visits assistants sent'),
});

export async function crawlerHitsByPeriod(db: Db, siteId: number, period: Period, window: readonly string[]) {
  const first = window[0];
  const last = window[window.length - 1];
  if (!first || !last) return [];
  const { rows } = await sql<{ start: string; hits: number; spoofed: number; referrals: number }>`
    SELECT start, sum(hits) AS hits, sum(spoofed) AS spoofed, sum(referrals) AS referrals FROM (
      SELECT start, hits, spoofed, 0 AS referrals FROM traffic_agent_period WHERE site_id = ${siteId} AND period = ${period} AND start BETWEEN ${first} AND ${last}
      UNION ALL
      SELECT start, 0, 0, visits FROM traffic_referral_period WHERE site_id = ${siteId} AND period = ${period} AND start BETWEEN ${first} AND ${last}) x
    GROUP BY start`.execute(db);
  const byStart = new Map(rows.map((r) => [r.start, r]));
  return window.map((start) => {
    const r = byStart.get(start);
    return {
      start,
      hits: Number(r?.hits ?? 0),
      spoofed: Number(r?.spoofed ?? 0),
      referrals: Number(r?.referrals ?? 0),
    };
  });
}
