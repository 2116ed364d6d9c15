import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse, compileBrandBook, wilson } from '../../src/analysis/index.ts';
import { loadBrandBookInput } from '../../src/domain/facts/brand-book.ts';
import { dropAnswerMonth } from '../../src/domain/facts/partitions.ts';
import { FEEDBACK_LOCK_WAIT_MS } from '../../src/domain/names/feedback.ts';
import { ROLLUP_TABLE_NAMES } from '../../src/domain/facts/rollup-tables.ts';
import { rebuildRollups } from '../../src/domain/facts/rollups.ts';
import { deleteSite } from '../../src/domain/sites/delete.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * Names and corrections through the HTTP API (CONTRACT.md "Names and
 * corrections"): exclusion phrases, readers' corrections re-reading an
 * answer at once with exact rollups, reanalysis keeping them, the names
 * list with counts, examples and precision, dry-run previews, warnings,
 * paging, validation, roles and scoping.
 */

let app: TestApp;
let ws: Org;
let other: Org;
let siteId: number;
let walmartId: number;
/** Answer ids by their letter (see ANSWERS). */
const ids: Record<string, number> = {};

const DAY = '2026-11-16T10:00:00Z';
const ANSWERS = {
  rainforest: {
    prompt: 'What is the largest forest?',
    provider: 'openai',
    text: 'The Amazon rainforest is the largest tropical forest on Earth.',
  },
  shop: {
    prompt: 'Best place to buy books?',
    provider: 'openai',
    text: 'I buy books on Amazon and groceries at Walmart.',
  },
  // The reading refuses this Amazon (taken for the place): a reader corrects it below.
  lower: {
    prompt: 'What is the largest forest?',
    provider: 'anthropic',
    text: 'For groceries try Walmart. You can order books from Amazon with fast delivery.',
  },
  both: {
    prompt: 'Where to buy books online?',
    provider: 'anthropic',
    text: 'Walmart and Amazon both sell electronics.',
  },
  failed: { prompt: 'Best store for home goods?', provider: 'openai', text: null, error: 'timeout' },
  target: { prompt: 'Best store for home goods?', provider: 'anthropic', text: 'Shoppers like Target for home goods.' },
} as const;

const post = (body: unknown, key = ws.keys.member, site = siteId) =>
  app.request('POST', `/projects/${site}/mention-feedback`, { key, body });
const names = async () =>
  (await app.request('GET', `/projects/${siteId}/names`, { key: ws.keys.viewer })).body as {
    names: NameItem[];
    unread: number;
    total: number;
    page: number;
    perPage: number;
  };
const nameOf = async (name: string) => (await names()).names.find((n) => n.name === name) as NameItem;
const verdictOf = async (id: number) =>
  (await app.ctx.db.selectFrom('answerFacts').select('verdict').where('answerId', '=', id).executeTakeFirstOrThrow())
    .verdict;
const visibility = async () =>
  (await app.request('GET', `/projects/${siteId}/report?period=week&start=2026-11-16`, { key: ws.keys.viewer })).body
    .report.current.visibility as number;

interface NameItem {
  name: string;
  field: string;
  competitorId: number | null;
  ambiguous: boolean;
  reason: string | null;
  countedIn: number;
  refusedIn: number;
  examples: { counted: { answerId: number; quote: string }[]; refused: { answerId: number; quote: string }[] };
  precision: {
    value: number | null;
    low: number | null;
    high: number | null;
    corrections: number;
    confirmed: number;
    rejected: number;
  };
}

/** Every rollup row of the site, as reports-rollups.test.ts compares them (tone sums to 3 decimals). */
async function rollups(): Promise<Record<string, string[]>> {
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

/** A reanalysis a request started, once finished (the request waits 3 s; a loaded machine may take longer). */
async function settled(
  reanalysis: { poll: string } | null,
): Promise<{ state: string; answers: number; verdictsChanged: number }> {
  if (reanalysis === null) throw new Error('no reanalysis was started');
  for (let i = 0; ; i++) {
    const r = (await app.request('GET', reanalysis.poll, { key: ws.keys.viewer })).body.reanalysis;
    if (r.state === 'done' || r.state === 'failed' || i > 300) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function expectRollupsEqualRebuild(): Promise<void> {
  const kept = await rollups();
  await app.ctx.db.transaction().execute((trx) => rebuildRollups(trx, siteId, 'all'));
  expect(kept).toEqual(await rollups());
}

beforeAll(async () => {
  app = await startTestApp({ workers: true });
  ws = await seedOrg(app.ctx);
  other = await seedOrg(app.ctx, { name: 'Other' });
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: {
      name: 'Amazon',
      url: 'amazon.com',
      excludePhrases: ['Amazon rainforest', ' Amazon rainforest '],
      competitors: [{ name: 'Walmart', domain: 'walmart.com' }],
    },
  });
  expect(res.status, res.text).toBe(200);
  siteId = res.body.project.id;
  walmartId = res.body.project.competitors[0].id;
  expect(res.body.project.excludePhrases).toEqual(['Amazon rainforest']);
  expect(res.body.warnings).toEqual([{ field: 'name', name: 'Amazon', reason: 'also the name of a place' }]);
  await seedAnswers(
    app.ctx,
    ws.orgId,
    siteId,
    Object.values(ANSWERS).map((a) => ({ ...a, askedAt: DAY })),
  );
  const rows = await app.ctx.db.selectFrom('answers').select(['id', 'text']).where('siteId', '=', siteId).execute();
  for (const [letter, a] of Object.entries(ANSWERS)) ids[letter] = rows.find((r) => r.text === a.text)?.id as number;
});
afterAll(() => app.close());

describe('exclusion phrases', () => {
  it('refuse the brand in an answer about the rainforest and count it in one about the shop', async () => {
    expect(await verdictOf(ids.rainforest as number)).toBe('missing');
    expect(await verdictOf(ids.shop as number)).toBe('named');
    expect(await verdictOf(ids.lower as number)).toBe('lost');
    expect(await visibility()).toBe(40);
  });

  it('are validated: at most 50, each at most 100 characters, on sites and competitors', async () => {
    const many = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { excludePhrases: Array.from({ length: 51 }, (_, i) => `p${i}`) },
    });
    expect(many.status).toBe(422);
    expect(many.body.fields).toEqual({ excludePhrases: 'at most 50 exclusion phrases' });
    const long = await app.request('POST', `/projects/${siteId}/competitors`, {
      key: ws.keys.member,
      body: { name: 'Costco', excludePhrases: ['x'.repeat(101)] },
    });
    expect(long.status).toBe(422);
    expect(long.body.fields).toEqual({ 'excludePhrases.0': 'an exclusion phrase must be at most 100 characters' });
    const nul = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { excludePhrases: ['Amazon\u0000river'] },
    });
    expect(nul.status).toBe(422);
    expect(nul.body.fields).toEqual({ 'excludePhrases.0': 'an exclusion phrase cannot contain NUL characters' });
    const create = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'X Co', url: 'xco.com', excludePhrases: [''] },
    });
    expect(create.status).toBe(422);
    expect(create.body.fields).toEqual({ 'excludePhrases.0': 'an exclusion phrase must not be empty' });
  });
});

describe('GET /projects/:id/names', () => {
  it('lists every name in use with its ambiguity, the answers where it counted and was refused, and examples each way', async () => {
    const list = await names();
    expect(list.unread).toBe(0);
    expect(list.names.map((n) => [n.name, n.field, n.competitorId])).toEqual([
      ['Amazon', 'name', null],
      ['Walmart', 'competitor', walmartId],
    ]);
    const amazon = list.names[0] as NameItem;
    expect(amazon).toMatchObject({ ambiguous: true, reason: 'also the name of a place', countedIn: 2, refusedIn: 2 });
    expect(amazon.examples).toEqual({
      counted: [
        { answerId: ids.both, quote: 'Walmart and Amazon both sell electronics.' },
        { answerId: ids.shop, quote: 'I buy books on Amazon and groceries at Walmart.' },
      ],
      refused: [
        { answerId: ids.lower, quote: 'You can order books from Amazon with fast delivery.' },
        { answerId: ids.rainforest, quote: 'The Amazon rainforest is the largest tropical forest on Earth.' },
      ],
    });
    expect(amazon.precision).toEqual({ value: null, low: null, high: null, corrections: 0, confirmed: 0, rejected: 0 });
    expect(list.names[1]).toMatchObject({
      ambiguous: false,
      reason: null,
      countedIn: 3,
      refusedIn: 0,
      examples: { refused: [] },
    });
    expect(list).toMatchObject({ total: 2, page: 1, perPage: 200 });
    const second = (await app.request('GET', `/projects/${siteId}/names?perPage=5&page=2`, { key: ws.keys.viewer }))
      .body;
    expect(second).toMatchObject({ names: [], total: 2, page: 2, perPage: 5 });
    expect((await app.request('GET', `/projects/${siteId}/names?perPage=500`, { key: ws.keys.viewer })).status).toBe(
      422,
    );
  });

  it('is a viewer’s to read and another workspace’s project is a 404', async () => {
    expect((await app.request('GET', `/projects/${siteId}/names`, { key: other.keys.admin })).status).toBe(404);
    expect((await app.request('GET', `/projects/${siteId}/mention-feedback`, { key: other.keys.admin })).status).toBe(
      404,
    );
    expect((await post({ answerId: ids.shop, name: 'Amazon', mentioned: true }, other.keys.admin)).status).toBe(404);
  });
});

describe('POST /projects/:id/mention-feedback', () => {
  it('corrects a refused occurrence: the answer is re-read at once, the report follows, rollups equal a rebuild', async () => {
    const before = await rollups();
    const res = await post({ answerId: ids.lower, name: 'Amazon', mentioned: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body.feedback).toMatchObject({
      answerId: ids.lower,
      name: 'Amazon',
      mentioned: true,
      readingAgreed: false,
      userId: ws.users.member,
      keyId: expect.any(Number),
    });
    expect(res.body.answer).toMatchObject({
      id: ids.lower,
      verdict: 'named',
      mentioned: true,
      brandRank: 2,
      brands: [{ name: 'Walmart' }, { name: 'Amazon' }],
    });
    expect(await verdictOf(ids.lower as number)).toBe('named');
    expect(await visibility()).toBe(60);
    expect(await rollups()).not.toEqual(before);
    await expectRollupsEqualRebuild();
    // The prompt's latest row and summary follow too.
    const latest = await app.ctx.db
      .selectFrom('rollupPromptLatest')
      .select(['verdict', 'brandRank'])
      .where('answerId', '=', ids.lower as number)
      .executeTakeFirstOrThrow();
    expect(latest).toEqual({ verdict: 'named', brandRank: 2 });
  });

  it('records whether the reading agreed, and counts toward the name’s precision with a Wilson interval', async () => {
    const agree = await post({ answerId: ids.shop, name: ' amazon ', mentioned: true });
    expect(agree.status).toBe(200);
    expect(agree.body.feedback).toMatchObject({ name: 'amazon', readingAgreed: true });
    expect(agree.body.answer.verdict).toBe('named');
    const interval = wilson(1, 2) as { low: number; high: number };
    expect((await nameOf('Amazon')).precision).toEqual({
      value: 50,
      low: Math.round(interval.low * 1000) / 10,
      high: Math.round(interval.high * 1000) / 10,
      corrections: 2,
      confirmed: 1,
      rejected: 1,
    });
    expect((await nameOf('Amazon')).countedIn).toBe(3);
    await expectRollupsEqualRebuild();
  });

  it('replaces an earlier correction of the same answer and name', async () => {
    const flip = await post({ answerId: ids.lower, name: 'AMAZON', mentioned: false });
    expect(flip.status).toBe(200);
    // Without any correction the reading refused it: saying "not meant" agrees.
    expect(flip.body.feedback).toMatchObject({ name: 'AMAZON', mentioned: false, readingAgreed: true });
    expect(flip.body.answer.verdict).toBe('lost');
    expect(await visibility()).toBe(40);
    const rows = await app.ctx.db
      .selectFrom('mentionFeedback')
      .select('id')
      .where('answerId', '=', ids.lower as number)
      .execute();
    expect(rows).toHaveLength(1);
    await expectRollupsEqualRebuild();
    const back = await post({ answerId: ids.lower, name: 'Amazon', mentioned: true });
    expect(back.body.answer.verdict).toBe('named');
    expect((await nameOf('Amazon')).precision).toMatchObject({ corrections: 2, confirmed: 1, rejected: 1 });
  });

  it('refuses what it cannot correct: 404 for an answer of no project of this key, 422 naming the field', async () => {
    expect((await post({ answerId: 999_999_999, name: 'Amazon', mentioned: true })).status).toBe(404);
    const unknown = await post({ answerId: ids.shop, name: 'Zappos', mentioned: true });
    expect(unknown.status).toBe(422);
    expect(unknown.body.fields).toEqual({
      name: "not a name this project tracks: give the project's name, a brand term, a competitor's name or an alias",
    });
    const absent = await post({ answerId: ids.target, name: 'Walmart', mentioned: false });
    expect(absent.status).toBe(422);
    expect(absent.body.fields).toEqual({ name: `does not occur as a word in answer ${ids.target}` });
    const failed = await post({ answerId: ids.failed, name: 'Amazon', mentioned: true });
    expect(failed.status).toBe(422);
    const long = await post({ answerId: ids.shop, name: 'A'.repeat(201), mentioned: true });
    expect(long.body.fields).toEqual({ name: 'name must be at most 200 characters' });
    const bad = await post({ answerId: 'x', name: '', mentioned: 'yes' });
    expect(bad.status).toBe(422);
    expect(bad.body.fields).toEqual({
      answerId: 'answerId must be an answer id',
      name: 'name must not be empty',
      mentioned: 'must be true or false',
    });
    expect((await post({ answerId: ids.shop, name: 'Amazon', mentioned: true }, ws.keys.viewer)).status).toBe(403);
  });

  it('answers 409 and saves nothing while a scan or reanalysis holds the project', async () => {
    const key = `${app.ctx.config.redisPrefix}:lock:site:${siteId}`;
    await app.ctx.redis.set(key, 'a scan', 'PX', 20_000);
    try {
      const started = Date.now();
      const res = await post({ answerId: ids.rainforest, name: 'Amazon', mentioned: true });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatch(/busy.*try again/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(FEEDBACK_LOCK_WAIT_MS - 100);
      expect(
        await app.ctx.db
          .selectFrom('mentionFeedback')
          .select('id')
          .where('answerId', '=', ids.rainforest as number)
          .execute(),
      ).toEqual([]);
    } finally {
      await app.ctx.redis.del(key);
    }
  });

  it('is kept by a later reanalysis with new names', async () => {
    const keyOf = async () =>
      (
        await app.ctx.db
          .selectFrom('answerFacts')
          .select('brandKey')
          .where('answerId', '=', ids.lower as number)
          .executeTakeFirstOrThrow()
      ).brandKey;
    const before = await keyOf();
    const res = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { brandTerms: ['AWS'] },
    });
    expect(res.status).toBe(200);
    expect(await settled(res.body.reanalysis)).toMatchObject({ state: 'done', answers: 6 });
    expect(res.body.warnings).toEqual([]);
    // Re-read with the new book (not skipped as current), and still counted as the reader said.
    expect(await keyOf()).not.toBe(before);
    expect(await verdictOf(ids.lower as number)).toBe('named');
    expect(await verdictOf(ids.rainforest as number)).toBe('missing');
    await expectRollupsEqualRebuild();
  });
});

describe('GET /projects/:id/mention-feedback', () => {
  it('pages the corrections newest first, filtered by name compared folded', async () => {
    const all = await app.request('GET', `/projects/${siteId}/mention-feedback`, { key: ws.keys.viewer });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 2, page: 1, perPage: 50 });
    expect(all.body.feedback.map((f: { answerId: number }) => f.answerId)).toEqual([ids.lower, ids.shop]);
    const amazon = await app.request('GET', `/projects/${siteId}/mention-feedback?name=%20AMAZON`, {
      key: ws.keys.viewer,
    });
    expect(amazon.body.total).toBe(2);
    const walmart = await app.request('GET', `/projects/${siteId}/mention-feedback?name=Walmart`, {
      key: ws.keys.viewer,
    });
    expect(walmart.body).toMatchObject({ feedback: [], total: 0 });
    const page2 = await app.request('GET', `/projects/${siteId}/mention-feedback?perPage=5&page=2`, {
      key: ws.keys.viewer,
    });
    expect(page2.body).toMatchObject({ feedback: [], total: 2, page: 2, perPage: 5 });
    const bad = await app.request('GET', `/projects/${siteId}/mention-feedback?perPage=1`, { key: ws.keys.viewer });
    expect(bad.status).toBe(422);
    expect(bad.body.fields).toEqual({ perPage: 'perPage must be a whole number from 5 to 200' });
  });
});

describe('dryRun', () => {
  async function saved() {
    const site = (await app.request('GET', `/projects/${siteId}`, { key: ws.keys.viewer })).body.project;
    const facts = await app.ctx.db
      .selectFrom('answerFacts')
      .select(['answerId', 'verdict', 'brandKey'])
      .where('siteId', '=', siteId)
      .orderBy('answerId')
      .execute();
    const reanalyses = await app.ctx.db.selectFrom('reanalyses').select('id').where('siteId', '=', siteId).execute();
    return { site, facts, reanalyses: reanalyses.length, rollups: await rollups() };
  }

  it('on a site change previews the moves per verdict with examples, and saves nothing', async () => {
    const was = await saved();
    const res = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { excludePhrases: ['Amazon rainforest', 'Walmart and Amazon'], location: 'Mars', dryRun: true },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      dryRun: true,
      warnings: [],
      preview: {
        answersRead: 6,
        answersTotal: 6,
        verdicts: {
          cited: { before: 0, after: 0 },
          named: { before: 3, after: 2 },
          lost: { before: 0, after: 1 },
          missing: { before: 2, after: 2 },
          failed: { before: 1, after: 1 },
        },
        moved: [{ from: 'named', to: 'lost', count: 1 }],
        examples: [
          {
            answerId: ids.both,
            promptId: expect.any(Number),
            provider: 'anthropic',
            before: 'named',
            after: 'lost',
            quote: 'Walmart and Amazon both sell electronics.',
          },
        ],
      },
    });
    expect(await saved()).toEqual(was);
  });

  it('on tracking a competitor previews with its names and warns about them, saving nothing', async () => {
    const was = await saved();
    const res = await app.request('POST', `/projects/${siteId}/competitors`, {
      key: ws.keys.member,
      body: { name: 'Target', aliases: ['TG'], dryRun: true },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.warnings).toEqual([
      { field: 'name', name: 'Target', reason: 'also an everyday English word' },
      { field: 'aliases', name: 'TG', reason: 'one or two letters, which stand for many other things' },
    ]);
    expect(res.body.preview).toMatchObject({
      answersRead: 6,
      moved: [{ from: 'missing', to: 'lost', count: 1 }],
      examples: [{ answerId: ids.target, quote: 'Shoppers like Target for home goods.' }],
    });
    expect(await saved()).toEqual(was);
  });

  it('on changing a competitor previews its new exclusion phrases, saving nothing', async () => {
    const was = await saved();
    const res = await app.request('PATCH', `/projects/${siteId}/competitors/${walmartId}`, {
      key: ws.keys.member,
      body: { excludePhrases: ['Walmart and Amazon'], dryRun: true },
    });
    expect(res.status, res.text).toBe(200);
    // Walmart's own name is refused there, before the reading. Whether Amazon, left without a brand beside it, still
    // reads as the shop is the reader's call (a learned model, src/analysis/reader-weights.json, docs/analysis.md):
    // the preview shows what the analysis reads with the new phrases, whichever it is.
    const input = await loadBrandBookInput(app.ctx.db, siteId);
    const changed = compileBrandBook({
      ...input,
      competitors: input.competitors.map((c) =>
        c.id === walmartId ? { ...c, excludePhrases: ['Walmart and Amazon'] } : c,
      ),
    });
    const after = analyse({ text: ANSWERS.both.text, citations: [], failed: false }, changed).verdict;
    expect(['named', 'missing']).toContain(after);
    expect(res.body).toMatchObject({
      dryRun: true,
      warnings: [],
      preview: {
        answersRead: 6,
        moved: after === 'named' ? [] : [{ from: 'named', to: after, count: 1 }],
        examples:
          after === 'named'
            ? []
            : [{ answerId: ids.both, before: 'named', after, quote: 'Walmart and Amazon both sell electronics.' }],
      },
    });
    expect(await saved()).toEqual(was);
  });

  it('reads at most the newest 2,000 answers, and says how many it read of how many', async () => {
    const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Zyxo', url: 'zyxo.com' },
    });
    const id = site.body.project.id as number;
    const { scanId } = await seedAnswers(app.ctx, ws.orgId, id, [
      { prompt: 'Seed prompt?', text: 'Nothing here.', askedAt: DAY },
    ]);
    // 70 prompts x 6 assistants x 5 samples, written straight in SQL (no facts): 2,100 more answers that name Zyxo Cloud.
    await sql`
      WITH p AS (INSERT INTO prompts (site_id, text, status) SELECT ${id}, 'Bulk prompt ' || g || '?', 'active' FROM generate_series(1, 70) g RETURNING id)
      INSERT INTO answers (scan_id, site_id, prompt_id, provider, model, asked_at, day, text, sample, month)
      SELECT ${scanId}, ${id}, p.id, v.provider, 'model', now(), current_date, 'Try Zyxo Cloud.', s, (SELECT month FROM answers WHERE scan_id = ${scanId} LIMIT 1)
        FROM p CROSS JOIN (VALUES ('openai'), ('anthropic'), ('perplexity'), ('gemini'), ('google-ai-overview'), ('google-ai-mode')) v(provider)
             CROSS JOIN generate_series(1, 5) s`.execute(app.ctx.db);
    const res = await app.request('PATCH', `/projects/${id}`, {
      key: ws.keys.member,
      body: { brandTerms: ['Zyxo Cloud'], dryRun: true },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.preview).toMatchObject({
      answersRead: 2000,
      answersTotal: 2101,
      moved: [{ from: 'failed', to: 'named', count: 2000 }],
    });
    expect(res.body.preview.examples).toHaveLength(10);
    // The newest first: the seeded answer (the oldest id) is not among those read.
    expect(res.body.preview.verdicts.missing).toEqual({ before: 0, after: 0 });
  });

  it('warns about the names it would save, and keeps the admin-only checks', async () => {
    const res = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { name: 'Amazon', dryRun: true },
    });
    expect(res.body.warnings).toEqual([{ field: 'name', name: 'Amazon', reason: 'also the name of a place' }]);
    // Admin-only fields are refused to a member in a dry run too.
    expect(
      (
        await app.request('PATCH', `/projects/${siteId}`, {
          key: ws.keys.member,
          body: { monthlyCapUsd: 5, dryRun: true },
        })
      ).status,
    ).toBe(403);
  });
});

describe('saving names and exclusion phrases', () => {
  it('re-reads stored answers when a site’s exclusion phrases change', async () => {
    const res = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { excludePhrases: ['Amazon rainforest', 'Walmart and Amazon'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.project.excludePhrases).toEqual(['Amazon rainforest', 'Walmart and Amazon']);
    expect(await settled(res.body.reanalysis)).toMatchObject({ state: 'done', verdictsChanged: 1 });
    expect(await verdictOf(ids.both as number)).toBe('lost');
    // The rainforest and now "Walmart and Amazon"; the corrected answer counts.
    expect((await nameOf('Amazon')).refusedIn).toBe(2);
    const same = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { excludePhrases: ['Amazon rainforest', 'Walmart and Amazon'], location: 'Mars' },
    });
    expect(same.body.reanalysis).toBeNull();
  });

  it('tracks and changes a competitor with exclusion phrases and warnings', async () => {
    const res = await app.request('POST', `/projects/${siteId}/competitors`, {
      key: ws.keys.member,
      body: { name: 'Target', excludePhrases: ['Target practice'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.competitor).toMatchObject({ name: 'Target', excludePhrases: ['Target practice'] });
    expect(res.body.warnings).toEqual([{ field: 'name', name: 'Target', reason: 'also an everyday English word' }]);
    expect(await settled(res.body.reanalysis)).toMatchObject({ state: 'done' });
    expect(await verdictOf(ids.target as number)).toBe('lost');
    const change = await app.request('PATCH', `/projects/${siteId}/competitors/${res.body.competitor.id}`, {
      key: ws.keys.member,
      body: { excludePhrases: ['like Target'] },
    });
    expect(change.body.competitor.excludePhrases).toEqual(['like Target']);
    expect(await settled(change.body.reanalysis)).toMatchObject({ state: 'done', verdictsChanged: 1 });
    expect(change.body.warnings).toEqual([]);
    expect(await verdictOf(ids.target as number)).toBe('missing');
    const colour = await app.request('PATCH', `/projects/${siteId}/competitors/${res.body.competitor.id}`, {
      key: ws.keys.member,
      body: { color: '#123456' },
    });
    expect(colour.body).toMatchObject({ reanalysis: null, warnings: [] });
  });

  it('warns about the ambiguous names a new project tracks, competitors included', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: {
        name: 'Qwertyx Labs',
        url: 'qwertyx.example.com',
        brandTerms: ['FL'],
        competitors: [{ name: 'Apple' }, { name: 'Zyxo Labs' }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([
      { field: 'brandTerms', name: 'FL', reason: 'one or two letters, which stand for many other things' },
      { field: 'competitors', name: 'Apple', reason: 'also an everyday English word' },
    ]);
  });

  it('warns about ambiguous brand terms only when they are saved', async () => {
    const res = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { brandTerms: ['HP', 'AWS', 'hp'] },
    });
    expect(res.body.warnings).toEqual([
      { field: 'brandTerms', name: 'HP', reason: 'one or two letters, which stand for many other things' },
    ]);
    await settled(res.body.reanalysis);
    expect(
      (await app.request('PATCH', `/projects/${siteId}`, { key: ws.keys.member, body: { location: 'Germany' } })).body
        .warnings,
    ).toEqual([]);
    const names = (await app.request('GET', `/projects/${siteId}/names`, { key: ws.keys.viewer })).body
      .names as NameItem[];
    expect(names.find((n) => n.name === 'HP')).toMatchObject({
      field: 'brandTerms',
      ambiguous: true,
      reason: 'one or two letters, which stand for many other things',
      countedIn: 0,
    });
  });
});

describe('a correction that takes a competitor out of an answer', () => {
  it('deletes the rollup rows it leaves counting nothing, as a rebuild has none', async () => {
    const p2 = (
      await app.ctx.db
        .selectFrom('answers')
        .select('promptId')
        .where('id', '=', ids.both as number)
        .executeTakeFirstOrThrow()
    ).promptId;
    const rows = () =>
      app.ctx.db
        .selectFrom('rollupPromptCompetitorPeriod')
        .select('mentioned')
        .where('siteId', '=', siteId)
        .where('competitorId', '=', walmartId)
        .where('promptId', '=', p2)
        .execute();
    expect(await rows()).not.toEqual([]);
    const res = await post({ answerId: ids.both, name: 'Walmart', mentioned: false });
    expect(res.status).toBe(200);
    expect(res.body.answer).toMatchObject({ verdict: 'missing', brands: [] });
    expect(await rows()).toEqual([]);
    await expectRollupsEqualRebuild();
  });
});

describe('examples of a long answer', () => {
  it('are quoted from its text where the reading found the name, past characters JavaScript counts twice', async () => {
    const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Quuxly', url: 'quuxly.com' },
    });
    const id = site.body.project.id as number;
    const text = `${'🚀'.repeat(300)}\nMany buyers pick Quuxly for speed.\n${'More words follow here. '.repeat(2000)}`;
    await seedAnswers(app.ctx, ws.orgId, id, [{ prompt: 'Fastest tool?', text, askedAt: DAY }]);
    const list = (await app.request('GET', `/projects/${id}/names`, { key: ws.keys.viewer })).body;
    expect(list.names[0]).toMatchObject({
      name: 'Quuxly',
      countedIn: 1,
      examples: { counted: [{ quote: 'Many buyers pick Quuxly for speed.' }] },
    });
  });
});

describe('corrections go with their answers', () => {
  it('when retention drops their month', async () => {
    const month = (
      await app.ctx.db
        .selectFrom('answers')
        .select('month')
        .where('id', '=', ids.lower as number)
        .executeTakeFirstOrThrow()
    ).month;
    expect(
      await app.ctx.db.selectFrom('mentionFeedback').select('id').where('answerMonth', '=', month).execute(),
    ).not.toEqual([]);
    await app.ctx.db.transaction().execute((trx) => dropAnswerMonth(trx, month));
    expect(await app.ctx.db.selectFrom('mentionFeedback').select('id').execute()).toEqual([]);
  });

  it('when their site is deleted', async () => {
    const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Acme', url: 'acme.com' },
    });
    const id = site.body.project.id as number;
    await seedAnswers(app.ctx, ws.orgId, id, [{ prompt: 'Best CRM?', text: 'Acme is a CRM.', askedAt: DAY }]);
    const answer = await app.ctx.db
      .selectFrom('answers')
      .select('id')
      .where('siteId', '=', id)
      .executeTakeFirstOrThrow();
    expect((await post({ answerId: answer.id, name: 'Acme', mentioned: false }, ws.keys.member, id)).status).toBe(200);
    await deleteSite(app.ctx, id);
    expect(await app.ctx.db.selectFrom('mentionFeedback').select('id').where('siteId', '=', id).execute()).toEqual([]);
  });
});
