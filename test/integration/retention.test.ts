import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import { dropAnswerMonth, ensureAnswerMonths } from '../../src/domain/facts/partitions.ts';
import { runRetentionTick } from '../../src/domain/facts/retention.ts';
import { storeAnswers } from '../../src/domain/facts/answer-store.ts';
import { reanalysisOfSites } from '../../src/domain/reanalysis/reanalysis.ts';
import { ROLLUP_TABLE_NAMES } from '../../src/domain/facts/rollup-tables.ts';
import { rebuildRollups } from '../../src/domain/facts/rollups.ts';
import { settle } from '../../src/domain/scans/purse-sql.ts';
import { loadBrandBook } from '../../src/domain/facts/brand-book.ts';
import { createSite } from '../../src/domain/onboarding/new-site.ts';
import { setOrgRetention } from '../../src/domain/orgs/orgs.ts';
import { withSiteLock } from '../../src/domain/common/site-lock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts } from '../helpers/scans.ts';

/**
 * Answers partitioned by their scan's month, and retention per workspace
 * (issue 17 "Data that grows"): where answers land, which months a run
 * drops for which workspace, that newer data, other workspaces and the
 * ledger are untouched, that a month no workspace keeps goes as a whole
 * partition, and that pages and the reanalysis cursor read across months.
 */

const clock = fixedClock('2025-06-15T12:00:00Z');
let app: TestApp;

interface Tenant {
  ws: Org;
  siteId: number;
  prompts: number[];
}

async function tenant(name: string, balanceUsd = 10): Promise<Tenant> {
  const ws = await seedOrg(app.ctx, { name, balanceUsd });
  const site = await createSite(
    app.ctx,
    { orgId: ws.orgId, userId: ws.ownerId },
    { name, url: `${name.toLowerCase()}.example.com` },
  );
  const prompts = await addActivePrompts(app.ctx, site.id, ['Best tool for teams?', 'Cheapest tool?']);
  return { ws, siteId: site.id, prompts };
}

/** A finished scan created at `createdAt` (its month's partitions made as a scan start makes them), with two answers per prompt, each charged. */
async function scanAt(
  t: Tenant,
  createdAt: string,
  askedAt = createdAt,
): Promise<{ scanId: number; answerIds: number[] }> {
  await ensureAnswerMonths(app.ctx.db, new Date(createdAt));
  const scan = await app.ctx.db
    .insertInto('scans')
    .values({
      orgId: t.ws.orgId,
      siteId: t.siteId,
      status: 'done',
      trigger: 'manual',
      createdAt,
      budgetMicros: 1_000_000,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const book = await loadBrandBook(app.ctx.db, t.siteId);
  const inputs = t.prompts.flatMap((promptId) =>
    ['openai', 'anthropic'].map((provider) => ({
      scanId: scan.id,
      siteId: t.siteId,
      promptId,
      provider,
      model: 'm',
      askedAt: new Date(askedAt),
      text: 'Globex is a fine choice.',
      citations: [],
      searches: ['best tool'],
      costMicros: 1_000,
      error: null,
      context: null,
    })),
  );
  const stored = await storeAnswers(app.ctx, inputs, book);
  const answerIds = stored.map((s) => s?.answerId as number);
  const ref = { orgId: t.ws.orgId, siteId: t.siteId, scanId: scan.id };
  await settle(
    app.ctx,
    ref,
    answerIds.map((answerId) => ({
      answerId,
      priceMicros: 1_000,
      reservedAt: new Date(askedAt),
      description: 'answer',
    })),
  );
  await app.ctx.db
    .updateTable('scans')
    .set({ spentMicros: 1_000 * answerIds.length })
    .where('id', '=', scan.id)
    .execute();
  return { scanId: scan.id, answerIds };
}

const partitionOf = async (table: 'answers' | 'answer_facts', column: 'id' | 'answer_id', ids: number[]) =>
  (
    await sql<{
      part: string;
    }>`SELECT DISTINCT tableoid::regclass::text AS part FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ANY(${ids}::bigint[])`.execute(
      app.ctx.db,
    )
  ).rows.map((r) => r.part);
const exists = async (table: string) =>
  (await sql<{ t: string | null }>`SELECT to_regclass(${table})::text AS t`.execute(app.ctx.db)).rows[0]?.t !== null;
const answerIdsOf = async (siteId: number) =>
  (await app.ctx.db.selectFrom('answers').select('id').where('siteId', '=', siteId).orderBy('id').execute()).map(
    (r) => r.id,
  );
const ledger = async () => (await sql`SELECT * FROM ledger_entries ORDER BY id`.execute(app.ctx.db)).rows;

async function rollups(siteId: number): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of ROLLUP_TABLE_NAMES) {
    const { rows } = await sql<
      Record<string, unknown>
    >`SELECT * FROM ${sql.raw(table)} WHERE site_id = ${siteId}`.execute(app.ctx.db);
    out[table] = rows
      .map((r) =>
        JSON.stringify({
          ...r,
          ...('toneSum' in r ? { toneSum: Math.round((r.toneSum as number) * 1000) / 1000 } : {}),
        }),
      )
      .sort();
  }
  return out;
}

/** A minimal answer of the tenant's first prompt, asked at `askedAt`, for storing straight through the answer writer. */
function oneAnswer(t: { siteId: number; prompts: number[] }, scanId: number, askedAt: string) {
  return {
    scanId,
    siteId: t.siteId,
    promptId: t.prompts[0] as number,
    provider: 'openai',
    model: 'm',
    askedAt: new Date(askedAt),
    text: 'x',
    citations: [],
    searches: [],
    costMicros: 0,
    error: null,
    context: null,
  };
}

beforeAll(async () => {
  app = await startTestApp({ clock });
});
afterAll(() => app.close());

describe('answers by month', () => {
  it('stores each answer and its facts in its scan’s month, also when asked after the month ended', async () => {
    const t = await tenant('Landing');
    const march = await scanAt(t, '2025-03-10T08:00:00Z');
    const late = await scanAt(t, '2025-03-31T23:50:00Z', '2025-04-01T00:20:00Z');
    const april = await scanAt(t, '2025-04-02T09:00:00Z');
    expect(await partitionOf('answers', 'id', march.answerIds)).toEqual(['answers_y2025m03']);
    expect(await partitionOf('answer_facts', 'answer_id', march.answerIds)).toEqual(['answer_facts_y2025m03']);
    // Every answer of a scan sits in one partition: the scan's month, whatever day it was asked.
    expect(await partitionOf('answers', 'id', late.answerIds)).toEqual(['answers_y2025m03']);
    const lateDays = await app.ctx.db
      .selectFrom('answers')
      .select(['day', 'month'])
      .where('scanId', '=', late.scanId)
      .execute();
    expect(new Set(lateDays.map((d) => `${d.day} ${d.month}`))).toEqual(new Set(['2025-04-01 2025-03-01']));
    expect(await partitionOf('answers', 'id', april.answerIds)).toEqual(['answers_y2025m04']);

    // Storing one again changes nothing: still unique per (scan, prompt, provider, sample).
    const book = await loadBrandBook(app.ctx.db, t.siteId);
    const again = await storeAnswers(app.ctx, [oneAnswer(t, late.scanId, '2025-04-03T00:00:00Z')], book);
    expect(again).toEqual([null]);
  });

  it('refuses an answer for a month that has no partition (there is no default partition)', async () => {
    const t = await tenant('Nowhere');
    const scan = await app.ctx.db
      .insertInto('scans')
      .values({
        orgId: t.ws.orgId,
        siteId: t.siteId,
        status: 'done',
        trigger: 'manual',
        createdAt: '2019-01-05T00:00:00Z',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const book = await loadBrandBook(app.ctx.db, t.siteId);
    const input = oneAnswer(t, scan.id, '2019-01-05T00:00:00Z');
    await expect(storeAnswers(app.ctx, [input], book)).rejects.toMatchObject({ code: '23514' });
    await ensureAnswerMonths(app.ctx.db, new Date('2019-01-05T00:00:00Z'));
    expect(await storeAnswers(app.ctx, [input], book)).toEqual([
      expect.objectContaining({ answerId: expect.any(Number) }),
    ]);
    await app.ctx.db.deleteFrom('scans').where('id', '=', scan.id).execute();
    await app.ctx.db.transaction().execute((trx) => dropAnswerMonth(trx, '2019-01-01'));
    expect(await exists('answers_y2019m01')).toBe(false);
  });

  it('pages a prompt’s answers newest first across month partitions, and reanalysis reads every one', async () => {
    const t = await tenant('Pages');
    const scans = [
      await scanAt(t, '2025-01-20T10:00:00Z'),
      await scanAt(t, '2025-02-28T23:30:00Z', '2025-03-01T00:10:00Z'),
      await scanAt(t, '2025-03-02T10:00:00Z'),
      await scanAt(t, '2025-04-11T10:00:00Z'),
    ];
    const promptId = t.prompts[0] as number;
    const expected = await app.ctx.db
      .selectFrom('answers')
      .select(['id', 'askedAt'])
      .where('promptId', '=', promptId)
      .orderBy('askedAt', 'desc')
      .orderBy('id', 'desc')
      .execute();
    expect(expected).toHaveLength(8);
    const seen: number[] = [];
    for (let page = 1; page <= 2; page++) {
      const res = await app.request('GET', `/projects/${t.siteId}/prompts/${promptId}?perPage=5&page=${page}`, {
        key: t.ws.keys.viewer,
      });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(8);
      seen.push(...(res.body.results as { id: number }[]).map((r) => r.id));
    }
    expect(seen).toEqual(expected.map((r) => r.id));
    expect(new Set(scans.flatMap((s) => s.answerIds)).size).toBe(16);

    // Reanalysis reads the site's answers through one cursor ordered by id, across every month.
    const result = await reanalysisOfSites(app.ctx, [t.siteId]);
    expect(result.answers).toBe(16);
  });
});

describe('retention', () => {
  it('drops the months each workspace no longer keeps, whole partitions when no workspace keeps them, and nothing else', async () => {
    // Now is 2025-06-15. Keep 2 months before June: April on. Keep everything. Keep 1: May on.
    const a = await tenant('Aretain');
    const b = await tenant('Bkeep');
    const c = await tenant('Cretain');
    await scanAt(a, '2024-11-05T10:00:00Z');
    await scanAt(c, '2024-11-20T10:00:00Z');
    const aDecember = await scanAt(a, '2024-12-10T10:00:00Z');
    await scanAt(b, '2024-12-12T10:00:00Z');
    const aApril = await scanAt(a, '2025-04-10T10:00:00Z');
    const aJune = await scanAt(a, '2025-06-01T10:00:00Z');
    await scanAt(b, '2025-06-02T10:00:00Z');
    const cMay = await scanAt(c, '2025-05-03T10:00:00Z');
    await setOrgRetention(app.ctx, a.ws.orgId, { retentionMonths: 2 });
    await setOrgRetention(app.ctx, c.ws.orgId, { retentionMonths: 1 });
    const shown = await app.request('GET', `/orgs/${a.ws.orgId}`, { key: a.ws.keys.viewer });
    expect(shown.body.org.retentionMonths).toBe(2);
    expect(
      (await app.request('GET', `/orgs/${b.ws.orgId}`, { key: b.ws.keys.viewer })).body.org.retentionMonths,
    ).toBeNull();

    const ledgerBefore = await ledger();
    const bAnswers = await answerIdsOf(b.siteId);
    const bRollups = await rollups(b.siteId);
    const aKept = [...aApril.answerIds, ...aJune.answerIds].sort((x, y) => x - y);

    const report = await runRetentionTick(app.ctx);

    // November 2024 held only A's and C's answers: both let it go, so its partitions are gone.
    expect(report.monthsDropped).toContain('2024-11-01');
    expect(await exists('answers_y2024m11')).toBe(false);
    expect(await exists('answer_facts_y2024m11')).toBe(false);
    // December 2024 is still B's: only A's rows left it.
    expect(report.monthsDropped).not.toContain('2024-12-01');
    expect(await exists('answers_y2024m12')).toBe(true);
    expect(await partitionOf('answers', 'id', aDecember.answerIds)).toEqual([]);
    expect(report.deleted).toEqual(
      expect.arrayContaining([
        { orgId: a.ws.orgId, siteId: a.siteId, before: '2025-04-01', answers: aDecember.answerIds.length },
      ]),
    );
    // A keeps April and June, C keeps May, B keeps everything; facts follow their answers.
    expect(await answerIdsOf(a.siteId)).toEqual(aKept);
    expect(await answerIdsOf(c.siteId)).toEqual(cMay.answerIds);
    expect(await answerIdsOf(b.siteId)).toEqual(bAnswers);
    const factsOfA = await app.ctx.db
      .selectFrom('answerFacts')
      .select('answerId')
      .where('siteId', '=', a.siteId)
      .orderBy('answerId')
      .execute();
    expect(factsOfA.map((f) => f.answerId)).toEqual(aKept);

    // The ledger is money history: not one entry changed, dropped answers' ids included.
    expect(await ledger()).toEqual(ledgerBefore);
    // Rollups follow the answers left: no day before April for A, the same as a rebuild from facts; B's untouched.
    const aDays = await app.ctx.db.selectFrom('rollupSiteDay').select('day').where('siteId', '=', a.siteId).execute();
    expect(aDays.every((d) => d.day >= '2025-04-01')).toBe(true);
    const aRollups = await rollups(a.siteId);
    await app.ctx.db.transaction().execute((trx) => rebuildRollups(trx, a.siteId));
    expect(await rollups(a.siteId)).toEqual(aRollups);
    expect(await rollups(b.siteId)).toEqual(bRollups);
    // The report lists no dropped month: no period shows half its answers.
    const shownMonths = await app.request('GET', `/projects/${a.siteId}/report?period=month`, {
      key: a.ws.keys.viewer,
    });
    expect(shownMonths.body.periods).toEqual(['2025-04-01', '2025-06-01']);

    // This month and the next two exist ahead of any scan.
    for (const m of ['2025m06', '2025m07', '2025m08']) expect(await exists(`answers_y${m}`)).toBe(true);
    expect(await app.ctx.db.selectFrom('retentionRebuilds').selectAll().execute()).toEqual([]);

    // A second run finds nothing more to do.
    const again = await runRetentionTick(app.ctx);
    expect(again).toMatchObject({ monthsDropped: [], deleted: [], busy: [] });
    expect(await answerIdsOf(a.siteId)).toEqual(aKept);
  });

  it('leaves a site another job holds for the next run, and still rebuilds its rollups after its month was dropped', async () => {
    const d = await tenant('Dbusy');
    await scanAt(d, '2024-08-07T10:00:00Z');
    const kept = await scanAt(d, '2025-06-03T10:00:00Z');
    await setOrgRetention(app.ctx, d.ws.orgId, { retentionMonths: 3 });
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = withSiteLock(app.ctx, d.siteId, () => held);
    try {
      const busy = await runRetentionTick(app.ctx);
      // August 2024 was only D's: its partitions went; D's rollups wait, marked, for its lock.
      expect(busy.monthsDropped).toContain('2024-08-01');
      expect(busy.busy).toEqual([d.siteId]);
      expect(await app.ctx.db.selectFrom('retentionRebuilds').select('siteId').execute()).toEqual([
        { siteId: d.siteId },
      ]);
      const stale = await app.ctx.db
        .selectFrom('rollupSiteDay')
        .select('day')
        .where('siteId', '=', d.siteId)
        .where('day', '<', '2025-03-01')
        .execute();
      expect(stale.length).toBeGreaterThan(0);
    } finally {
      release();
      await holding;
    }
    const done = await runRetentionTick(app.ctx);
    expect(done.rebuilt).toEqual([d.siteId]);
    expect(done.busy).toEqual([]);
    expect(await app.ctx.db.selectFrom('retentionRebuilds').selectAll().execute()).toEqual([]);
    const days = await app.ctx.db.selectFrom('rollupSiteDay').select('day').where('siteId', '=', d.siteId).execute();
    expect([...new Set(days.map((r) => r.day))]).toEqual(['2025-06-03']);
    expect(await answerIdsOf(d.siteId)).toEqual(kept.answerIds);
  });
});
