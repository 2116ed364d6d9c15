import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildRollups, searchKeySql } from '../../src/domain/facts/rollups.ts';
import { ROLLUP_TABLE_NAMES } from '../../src/domain/facts/rollup-tables.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { storeAnswers } from '../../src/domain/facts/answer-store.ts';
import { loadBrandBook } from '../../src/domain/facts/brand-book.ts';
import { addAcmeSite, seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * The report rollups kept answer by answer (the scan and import path) equal
 * the ones reanalysis rebuilds from facts, table by table, row by row.
 */

let app: TestApp;
let ws: Org;
let siteId: number;

const TABLES = ROLLUP_TABLE_NAMES;

async function snapshot(site = siteId): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    const { rows } = await sql<
      Record<string, unknown>
    >`SELECT * FROM ${sql.raw(table)} WHERE site_id = ${site}`.execute(app.ctx.db);
    // tone_sum is a float4 sum: adding in another order may differ in the last bit.
    const norm = rows.map((r) => ({
      ...r,
      ...('toneSum' in r ? { toneSum: Math.round((r.toneSum as number) * 1000) / 1000 } : {}),
    }));
    out[table] = norm.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

const LIST = '1. **Acme** is reliable.\n2. **Globex** is cheap.\n3. **Trello** is simple.\n4. **Asana** is popular.';

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
  siteId = (await addAcmeSite(app, ws)).id;
  const cites = [
    { url: 'https://www.acme.com/pricing?utm_source=x', title: 'Acme pricing' },
    { url: 'https://acme.com/docs', title: 'Docs' },
    { url: 'https://globex.com/vs-acme', title: 'Globex vs Acme' },
    { url: 'https://www.reddit.com/r/crm/1', title: 'Reddit' },
    { url: 'https://www.reddit.com/r/crm/2', title: 'Reddit' },
    { url: 'ftp://weird', title: null },
  ];
  // One import is one scan, and a scan holds one answer per prompt and assistant: later answers come in later imports.
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    // Sunday 2026-03-29 (week of 03-23, Q1), Monday 03-30 and Wednesday 04-01 (week of 03-30, Q2).
    {
      prompt: 'Best CRM?',
      provider: 'openai',
      askedAt: '2026-03-29T23:59:00Z',
      text: LIST,
      citations: cites,
      searches: ['best crm', 'best crm', 'crm reviews'],
    },
    {
      prompt: 'Best CRM?',
      provider: 'anthropic',
      askedAt: '2026-03-29T10:00:00Z',
      text: 'Globex and Initech lead; Acme trails. Trello, Asana too.',
      citations: cites.slice(2, 4),
      searches: ['best crm'],
    },
    {
      prompt: 'Cheapest CRM?',
      provider: 'gemini',
      askedAt: '2026-04-01T09:00:00Z',
      text: null,
      error: 'timeout',
      searches: ['cheap crm'],
    },
    {
      prompt: 'Cheapest CRM?',
      provider: 'perplexity',
      askedAt: '2026-04-01T09:00:00Z',
      text: 'Nothing relevant.',
      searches: [],
    },
  ]);
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    {
      prompt: 'Best CRM?',
      provider: 'openai',
      askedAt: '2026-04-01T08:00:00Z',
      text: 'Initech is first, then Acme.',
      citations: [],
      searches: ['Best CRM'],
    },
    {
      prompt: 'Cheapest CRM?',
      provider: 'perplexity',
      askedAt: '2026-12-31T23:00:00Z',
      text: LIST,
      citations: cites.slice(3),
      searches: ['x'.repeat(600), '  Best   CRM ', 'ÉCOLE crm'],
    },
  ]);
  // Imported late but asked earlier: it counts in its own days and never replaces a newer latest answer.
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    {
      prompt: 'Best CRM?',
      provider: 'openai',
      askedAt: '2026-03-30T08:00:00Z',
      text: 'Acme alone.',
      citations: [cites[0] as { url: string; title: string }],
    },
  ]);
  // A scan with three samples per prompt and assistant, stored in two batches out of order: the latest
  // rows count that scan's samples (asked, answered, named), whichever batch brought which sample.
  const prompt = await app.ctx.db
    .selectFrom('prompts')
    .select('id')
    .where('siteId', '=', siteId)
    .where('text', '=', 'Cheapest CRM?')
    .executeTakeFirstOrThrow();
  const scan = await app.ctx.db
    .insertInto('scans')
    .values({ orgId: ws.orgId, siteId, status: 'done', trigger: 'import', answersTotal: 3 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const book = await loadBrandBook(app.ctx.db, siteId);
  const sample = (n: number, askedAt: string, text: string | null) => ({
    scanId: scan.id,
    siteId,
    promptId: prompt.id,
    sample: n,
    provider: 'gemini',
    model: 'gemini-2.5-flash',
    askedAt: new Date(askedAt),
    text,
    citations: [],
    searches: [],
    costMicros: 0,
    error: text ? null : 'timeout',
    context: null,
  });
  await storeAnswers(app.ctx, [sample(3, '2027-01-02T10:02:00Z', 'Acme and Globex.')], book);
  await storeAnswers(
    app.ctx,
    [sample(1, '2027-01-02T10:00:00Z', 'Globex only.'), sample(2, '2027-01-02T10:01:00Z', null)],
    book,
  );
});
afterAll(() => app.close());

describe('report rollups', () => {
  it('are written with every answer', async () => {
    const snap = await snapshot();
    for (const table of TABLES) expect(snap[table]?.length, table).toBeGreaterThan(0);
    const latest = await app.ctx.db
      .selectFrom('rollupPromptLatest')
      .select(['provider', 'verdict', 'brandRank'])
      .where('siteId', '=', siteId)
      .orderBy('askedAt')
      .orderBy('provider')
      .execute();
    expect(latest).toEqual([
      { provider: 'anthropic', verdict: 'named', brandRank: 3 },
      { provider: 'openai', verdict: 'named', brandRank: 2 },
      { provider: 'perplexity', verdict: 'named', brandRank: 1 },
      { provider: 'gemini', verdict: 'named', brandRank: 1 },
    ]);
    const samples = await app.ctx.db
      .selectFrom('rollupPromptLatest')
      .select(['provider', 'samples', 'answered', 'named'])
      .where('siteId', '=', siteId)
      .orderBy('provider')
      .execute();
    expect(samples).toEqual([
      { provider: 'anthropic', samples: 1, answered: 1, named: 1 },
      { provider: 'gemini', samples: 3, answered: 2, named: 1 },
      { provider: 'openai', samples: 1, answered: 1, named: 1 },
      { provider: 'perplexity', samples: 1, answered: 1, named: 1 },
    ]);
    const summary = await app.ctx.db
      .selectFrom('rollupPromptSummary')
      .select(['answered', 'named', 'consistency'])
      .where('siteId', '=', siteId)
      .orderBy('promptId')
      .execute();
    expect(summary).toEqual([
      { answered: 2, named: 2, consistency: 1 },
      { answered: 3, named: 2, consistency: expect.closeTo(2 / 3, 6) },
    ]);
    const long = await app.ctx.db
      .selectFrom('rollupSearchPeriod')
      .select('query')
      .where('siteId', '=', siteId)
      .where('query', 'like', 'xxx%')
      .executeTakeFirstOrThrow();
    expect(long.query).toHaveLength(500);
  });

  it('kept incrementally equal the ones rebuilt from facts', async () => {
    const incremental = await snapshot();
    await app.ctx.db.transaction().execute((trx) => rebuildRollups(trx, siteId));
    const rebuilt = await snapshot();
    for (const table of TABLES) expect(rebuilt[table], table).toEqual(incremental[table]);
  });

  it('rebuilt after reanalysis (facts only) equal them too', async () => {
    const incremental = await snapshot();
    // Stale fact-derived rows, as a reanalysis finds them once facts are rewritten.
    await sql`UPDATE rollup_prompt_latest SET verdict = 'missing', brand_rank = NULL, competitors_named = '{}', named = 0 WHERE site_id = ${siteId}`.execute(
      app.ctx.db,
    );
    await sql`UPDATE rollup_prompt_period SET named = 0, cited = 0 WHERE site_id = ${siteId}`.execute(app.ctx.db);
    await sql`DELETE FROM rollup_prompt_summary WHERE site_id = ${siteId}`.execute(app.ctx.db);
    await app.ctx.db.transaction().execute((trx) => rebuildRollups(trx, siteId, 'facts'));
    const rebuilt = await snapshot();
    for (const table of TABLES) expect(rebuilt[table], table).toEqual(incremental[table]);
  });
});

describe('searches as counted', () => {
  it('fold spaces and ASCII case only, and are cut at 500 characters', async () => {
    const stored = await app.ctx.db
      .selectFrom('rollupSearchPeriod')
      .select('query')
      .distinct()
      .where('siteId', '=', siteId)
      .execute();
    const queries = stored.map((r) => r.query);
    expect(queries.filter((q) => !q.startsWith('xxx')).sort()).toEqual([
      'best crm',
      'cheap crm',
      'crm reviews',
      'École crm',
    ]);
    expect(queries.find((q) => q.startsWith('xxx'))).toBe('x'.repeat(500));
  });

  it('are cut at 500 characters, not 500 UTF-16 units', async () => {
    const { rows } = await sql<{
      query: string;
    }>`SELECT ${searchKeySql('s')} AS query FROM (VALUES (${'😀'.repeat(600)}), (${'  Best   CRM '})) v(s)`.execute(
      app.ctx.db,
    );
    expect(Array.from(rows[0]?.query ?? '')).toHaveLength(500);
    expect(rows[1]?.query).toBe('best crm');
  });
});

/**
 * The rollup tables have no foreign keys (their rows are written by the
 * hundred per batch, and a key check on each was a sixth of the database's
 * work per answer): triggers on sites and prompts delete their rows instead.
 */
describe('rollup rows without foreign keys', () => {
  const count = async (table: string, column: string, id: number) =>
    (
      await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM ${sql.raw(table)} WHERE ${sql.raw(column)} = ${id}`.execute(app.ctx.db)
    ).rows[0]?.n ?? 0;

  it('go with a deleted prompt (its latest rows and summary) and with a deleted workspace (every table)', async () => {
    const other = await seedOrg(app.ctx);
    const site = (await addAcmeSite(app, other)).id;
    await seedAnswers(app.ctx, other.orgId, site, [
      {
        prompt: 'Best CRM?',
        provider: 'openai',
        askedAt: '2026-03-29T10:00:00Z',
        text: LIST,
        citations: [
          { url: 'https://acme.com/docs', title: 'Docs' },
          { url: 'https://globex.com/vs-acme', title: 'Globex vs Acme' },
          { url: 'https://www.reddit.com/r/crm/1', title: 'Reddit' },
        ],
        searches: ['best crm'],
      },
      {
        prompt: 'Cheapest CRM?',
        provider: 'openai',
        askedAt: '2026-03-29T10:00:00Z',
        text: 'Acme.',
        searches: ['cheap crm'],
      },
    ]);
    const prompt = await app.ctx.db
      .selectFrom('prompts')
      .select('id')
      .where('siteId', '=', site)
      .where('text', '=', 'Best CRM?')
      .executeTakeFirstOrThrow();
    expect(await count('rollup_prompt_latest', 'prompt_id', prompt.id)).toBe(1);
    expect(await count('rollup_prompt_summary', 'prompt_id', prompt.id)).toBe(1);

    await app.ctx.db.deleteFrom('prompts').where('id', '=', prompt.id).execute();
    expect(await count('rollup_prompt_latest', 'prompt_id', prompt.id)).toBe(0);
    expect(await count('rollup_prompt_summary', 'prompt_id', prompt.id)).toBe(0);
    expect(await count('rollup_prompt_latest', 'site_id', site)).toBe(1);

    for (const table of TABLES) expect(await count(table, 'site_id', site), table).toBeGreaterThan(0);
    await app.ctx.db.deleteFrom('orgs').where('id', '=', other.orgId).execute();
    for (const table of TABLES) expect(await count(table, 'site_id', site), table).toBe(0);
    // The first workspace's site keeps its rows.
    expect(await count('rollup_site_day', 'site_id', siteId)).toBeGreaterThan(0);
  });
});

/**
 * A scan's answer writer stores several batches at once, and batches of
 * different assistants add to the same prompt's rows. The first batch to
 * make a prompt's row of a period inserts that prompt's other rows without
 * ON CONFLICT (batchRollups): the others must wait for it and add to them,
 * never insert them twice, and the sums must equal a rebuild's.
 */
describe('batches stored at once', () => {
  it('add to the same prompts rows without conflict, equal to a rebuild', async () => {
    const other = await seedOrg(app.ctx);
    const site = (await addAcmeSite(app, other)).id;
    const prompts = await app.ctx.db
      .insertInto('prompts')
      .values(['Best CRM?', 'Cheapest CRM?', 'CRM for startups?'].map((text) => ({ siteId: site, text })))
      .returning('id')
      .execute();
    const scan = await app.ctx.db
      .insertInto('scans')
      .values({ orgId: other.orgId, siteId: site, status: 'running', trigger: 'manual', answersTotal: 36 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const book = await loadBrandBook(app.ctx.db, site);
    const providers = ['openai', 'anthropic', 'gemini', 'perplexity', 'google-ai-overview', 'google-ai-mode'];
    const batch = (provider: string, sample: number, askedAt: string) =>
      prompts.map((p, i) => ({
        scanId: scan.id,
        siteId: site,
        promptId: p.id,
        sample,
        provider,
        model: 'm',
        askedAt: new Date(askedAt),
        text: i === 2 ? 'Globex and Acme.' : LIST,
        citations: [
          { url: 'https://www.reddit.com/r/crm/1', title: 'Reddit' },
          { url: `https://news${i}.example.com/crm`, title: 'News' },
        ],
        searches: ['best crm', `crm ${provider}`],
        costMicros: 0,
        error: null,
        context: null,
      }));
    // Every assistant's batch at once, twice: first the prompts' first answers of the period, then more of them.
    for (const [sample, askedAt] of [
      [1, '2026-05-04T10:00:00Z'],
      [2, '2026-05-05T10:00:00Z'],
    ] as const)
      await Promise.all(providers.map((provider) => storeAnswers(app.ctx, batch(provider, sample, askedAt), book)));
    const incremental = await snapshot(site);
    const period = await app.ctx.db
      .selectFrom('rollupPromptPeriod')
      .select(['answers'])
      .where('siteId', '=', site)
      .where('period', '=', 'week')
      .where('promptId', '=', prompts[0]!.id)
      .executeTakeFirstOrThrow();
    expect(period.answers).toBe(12);
    await app.ctx.db.transaction().execute((trx) => rebuildRollups(trx, site));
    const rebuilt = await snapshot(site);
    for (const table of TABLES) expect(rebuilt[table], table).toEqual(incremental[table]);
  });
});
