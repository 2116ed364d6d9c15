import { sql, type RawBuilder } from 'kysely';
import { SITE_TYPES, type Period } from '../common/index.ts';
import { hidden } from './base.ts';
import { searchKeySql, siteTypeColumn } from '../facts/index.ts';

/**
 * The rows of one period of the per-prompt tables that keep no day rows
 * (COARSE_KINDS in ./rollup-tables.ts), as a subquery: from the rollup for a week,
 * month or quarter, from that day's facts for a day (a day's answers are at
 * most prompts x assistants x that day's scans, found by answer_facts'
 * site and day index). Both give the same rows.
 */

/**
 * `(prompt_id, mentioned)`: answers naming one competitor, per prompt, for
 * the prepared statements of ./competitor-detail.ts: the period kind is
 * written into the text (one statement per kind), the values hidden from the
 * planner (see `hidden`).
 */
export function promptCompetitorRows(
  siteId: number,
  competitorId: number,
  period: Period,
  start: string,
): RawBuilder<unknown> {
  if (period === 'day') {
    return sql`SELECT f.prompt_id, count(*) AS mentioned FROM answer_facts f
                WHERE f.site_id = ${hidden(siteId, 'int')} AND f.day = ${hidden(start, 'date')} AND ${hidden(competitorId, 'int')} = ANY (f.competitors_named)
                GROUP BY f.prompt_id`;
  }
  return sql`SELECT prompt_id, mentioned FROM rollup_prompt_competitor_period
              WHERE site_id = ${hidden(siteId, 'int')} AND period = ${sql.lit(period)} AND start = ${hidden(start, 'date')}
                AND competitor_id = ${hidden(competitorId, 'int')}`;
}

/** `(url, prompt_id, provider, answers)`: answers linking to each of the brand's own pages. */
export function ownPagePromptRows(siteId: number, period: Period, start: string): RawBuilder<unknown> {
  if (period === 'day') {
    return sql`SELECT c.url, f.prompt_id, f.provider, count(*) AS answers FROM answer_facts f
                CROSS JOIN LATERAL (SELECT DISTINCT x->>'normalizedUrl' AS url FROM jsonb_array_elements(f.citations) x WHERE x->>'siteType' = 'own') c
                WHERE f.site_id = ${siteId} AND f.day = ${start}
                GROUP BY c.url, f.prompt_id, f.provider`;
  }
  return sql`SELECT url, prompt_id, provider, answers FROM rollup_own_page_prompt_period
              WHERE site_id = ${siteId} AND period = ${period} AND start = ${start}`;
}

/** `(prompt_id, query, answers)`: answers that ran each search, folded as the rollup folds them. */
export function searchRows(siteId: number, period: Period, start: string): RawBuilder<unknown> {
  if (period === 'day') {
    return sql`SELECT f.prompt_id, q.query, count(*) AS answers FROM answer_facts f JOIN answers a ON a.id = f.answer_id AND a.month = f.month
                CROSS JOIN LATERAL (SELECT DISTINCT k.query FROM (SELECT ${searchKeySql('s')} AS query FROM jsonb_array_elements_text(a.searches) AS s OFFSET 0) k
                                     WHERE k.query <> '') q
                WHERE f.site_id = ${siteId} AND f.day = ${start}
                GROUP BY f.prompt_id, q.query`;
  }
  return sql`SELECT prompt_id, query, answers FROM rollup_search_period WHERE site_id = ${siteId} AND period = ${period} AND start = ${start}`;
}

/** `(domain, site_type, prompt_id, answers, names_brand, citations)`: each cited domain per prompt, as rollup_source_period counts them. */
export function promptSourceRows(siteId: number, period: Period, start: string): RawBuilder<unknown> {
  if (period === 'day') {
    return sql`SELECT c.domain, c.site_type, f.prompt_id, count(*) AS answers, count(*) FILTER (WHERE f.mentioned) AS names_brand, sum(c.n) AS citations
                 FROM answer_facts f
                CROSS JOIN LATERAL (SELECT x->>'domain' AS domain, x->>'siteType' AS site_type, count(*) AS n
                                      FROM jsonb_array_elements(f.citations) x WHERE x->>'domain' <> '' GROUP BY 1, 2) c
                WHERE f.site_id = ${siteId} AND f.day = ${start}
                GROUP BY c.domain, c.site_type, f.prompt_id`;
  }
  return sql`SELECT domain, site_type, prompt_id, answers, names_brand, citations FROM rollup_prompt_source_period
              WHERE site_id = ${siteId} AND period = ${period} AND start = ${start}`;
}

/**
 * `(site_type, prompt_id, citations)`: citations of each site type per prompt (domains not empty, as
 * rollup_source_period counts them), from the columns rollup_prompt_period keeps of them; for every period kind,
 * as that table keeps day rows too. Types a prompt's answers did not cite give no row.
 */
export function promptSiteTypeRows(siteId: number, period: Period, start: string): RawBuilder<unknown> {
  // The types are fixed words (SITE_TYPES), written into the text as they are.
  const types = SITE_TYPES.map((t) => `('${t}', r.${siteTypeColumn(t)})`);
  return sql`SELECT s.site_type, r.prompt_id, s.citations FROM rollup_prompt_period r
              CROSS JOIN LATERAL (VALUES ${sql.raw(types.join(', '))}) AS s(site_type, citations)
              WHERE r.site_id = ${siteId} AND r.period = ${period} AND r.start = ${start} AND s.citations > 0`;
}
