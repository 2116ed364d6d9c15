import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModel } from '../../src/assistants/catalog.ts';
import { keepRawText } from '../../src/assistants/truncate.ts';
import { checkMoney } from '../../src/domain/scans/money-check.ts';
import { runScan } from '../../src/domain/scans/run.ts';
import { startScan } from '../../src/domain/scans/scans.ts';
import { storeAnswers } from '../../src/domain/facts/answer-store.ts';
import { loadBrandBook } from '../../src/domain/facts/brand-book.ts';
import type { Micros } from '../../src/money.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts, moneyFacts, script, waitForScan } from '../helpers/scans.ts';

/**
 * Samples (issue 16): each chosen prompt asked `samples` times per assistant
 * in one scan, every sample its own answer, reservation and charge; resume
 * never asks a sample twice; the prompt list shows how many samples named
 * the brand, and sorts and filters by it.
 */

/** An answer as a previous run stored it, before its prompt, sample and text are given. */
function answerOf(scanId: number, siteId: number, provider: 'gemini' | 'openai') {
  return {
    scanId,
    siteId,
    provider,
    model: defaultModel(provider).id,
    askedAt: new Date(),
    citations: [],
    searches: [],
    costMicros: 0 as Micros,
    error: null,
    context: null,
  };
}

let app: TestApp;
let ws: Org;

const price = (provider: Parameters<typeof defaultModel>[0]) => defaultModel(provider).priceMicros;

async function newSite(name: string, prompts: string[]): Promise<{ siteId: number; promptIds: number[] }> {
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name, url: `${name.toLowerCase()}.com` },
  });
  const siteId = res.body.project.id as number;
  return { siteId, promptIds: await addActivePrompts(app.ctx, siteId, prompts) };
}

async function simulatorRequests(): Promise<number> {
  const body = (await (await fetch(`${app.simulatorUrl}/__sim/requests`)).json()) as { counts: Record<string, number> };
  return Object.values(body.counts).reduce((n, c) => n + c, 0);
}

beforeAll(async () => {
  app = await startTestApp({ workers: true, simulator: true, env: { SCAN_POLL_MS: '200' } });
  ws = await seedOrg(app.ctx, { balanceUsd: 50 });
});
afterAll(() => app.close());

describe('samples', () => {
  it('validates samples from 1 to 5 on scans and saved settings', async () => {
    const { siteId } = await newSite('Bounds', ['Which Bounds tool is best?']);
    for (const samples of [0, 6, 2.5, '3']) {
      const res = await app.request('POST', `/projects/${siteId}/scans/estimate`, {
        key: ws.keys.viewer,
        body: { samples },
      });
      expect(res.status, String(samples)).toBe(422);
      expect(res.body.fields).toEqual({ samples: 'must be a whole number from 1 to 5' });
    }
    const saved = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.admin,
      body: { scanSettings: { samples: 9 } },
    });
    expect(saved.status).toBe(422);
    expect(saved.body.fields).toEqual({ 'scanSettings.samples': 'must be a whole number from 1 to 5' });
  });

  it('a scan with samples 3 stores three answers per prompt and assistant, each charged once', async () => {
    const { siteId, promptIds } = await newSite('Thrice', [
      'Which Thrice tool is best for agencies?',
      'Which Thrice tool is cheapest?',
    ]);
    await script(app, { provider: null, match: 'Thrice tool', mention: { name: 'Thrice', probability: 0.5, seed: 3 } });
    const body = { providers: ['openai', 'perplexity'], samples: 3 };
    const expected = 2 * 3 * (price('openai') + price('perplexity'));
    const estimate = await app.request('POST', `/projects/${siteId}/scans/estimate`, { key: ws.keys.viewer, body });
    expect(estimate.body).toMatchObject({ prompts: 2, answers: 12, samples: 3, cost: expected / 1e6 });
    expect(estimate.body.providers[0]).toMatchObject({ answers: 6, costUsd: (6 * price('openai')) / 1e6 });

    const before = await simulatorRequests();
    const start = await app.request('POST', `/projects/${siteId}/scans`, { key: ws.keys.admin, body });
    expect(start.body.scan).toMatchObject({ samples: 3, answersTotal: 12, budgetUsd: (2 * expected) / 1e6 });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    expect(done.scan).toMatchObject({ status: 'done', answersDone: 12, costUsd: expected / 1e6, samples: 3 });
    expect(await simulatorRequests()).toBe(before + 12);

    const stored = await app.ctx.db
      .selectFrom('answers')
      .select(['promptId', 'provider', 'sample'])
      .where('scanId', '=', start.body.scan.id)
      .execute();
    const keys = stored.map((a) => `${a.promptId}|${a.provider}|${a.sample}`).sort();
    expect(new Set(keys).size).toBe(12);
    for (const p of promptIds)
      for (const provider of ['openai', 'perplexity'])
        expect(
          stored
            .filter((a) => a.promptId === p && a.provider === provider)
            .map((a) => a.sample)
            .sort(),
        ).toEqual([1, 2, 3]);
    expect(done.answers.map((a: { sample: number }) => a.sample).sort()).toEqual([1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);

    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);
    expect(money).toMatchObject({
      charges: 12,
      answered: 12,
      charged: expected,
      answersCost: expected,
      scanSpent: expected,
      scanReserved: 0,
      orgReserved: 0,
    });
    expect(money.balance).toBe(money.ledgerBalance);
    expect((await checkMoney(app.ctx)).problems).toEqual([]);

    // The prompt list: how many of each assistant's three samples named the brand.
    const list = (await app.request('GET', `/projects/${siteId}/prompts?sort=consistency`, { key: ws.keys.viewer }))
      .body.prompts;
    const facts = await app.ctx.db
      .selectFrom('answers as a')
      .innerJoin('answerFacts as f', 'f.answerId', 'a.id')
      .select(['a.promptId', 'a.provider', 'f.verdict'])
      .where('a.scanId', '=', start.body.scan.id)
      .execute();
    const named = (p: number, provider?: string) =>
      facts.filter(
        (f) => f.promptId === p && (!provider || f.provider === provider) && ['named', 'cited'].includes(f.verdict),
      ).length;
    for (const item of list) {
      expect(item.consistency.providers.openai).toEqual({ samples: 3, answered: 3, named: named(item.id, 'openai') });
      expect(item.consistency.providers.perplexity).toEqual({
        samples: 3,
        answered: 3,
        named: named(item.id, 'perplexity'),
      });
      expect(item.consistency.providers.gemini).toBeNull();
      expect(item.consistency).toMatchObject({
        named: named(item.id),
        answered: 6,
        share: Math.round((1000 * named(item.id)) / 6) / 10,
      });
    }
    // Sorted by the share of samples naming the brand, most first.
    expect(list.map((p: { consistency: { share: number } }) => p.consistency.share)).toEqual(
      [...list.map((p: { consistency: { share: number } }) => p.consistency.share)].sort((a, b) => b - a),
    );
    // The CSV export carries the same counts: per assistant named of samples ("2 of 3"), and the percent.
    const csv = await app.request('GET', `/projects/${siteId}/prompts/export.csv?sort=consistency`, {
      key: ws.keys.viewer,
    });
    expect(csv.status).toBe(200);
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.text)).toEqual(list.map((p: { text: string }) => p.text));
    for (const [i, item] of list.entries()) {
      expect(rows[i]).toMatchObject({
        named_openai: String(named(item.id, 'openai')),
        samples_openai: '3',
        named_perplexity: String(named(item.id, 'perplexity')),
        samples_perplexity: '3',
        named_gemini: '',
        samples_gemini: '',
        consistency: String(item.consistency.share),
      });
    }
    const filtered = async (value: string) =>
      (
        await app.request('GET', `/projects/${siteId}/prompts?consistency=${value}`, { key: ws.keys.viewer })
      ).body.prompts
        .map((p: { id: number }) => p.id)
        .sort();
    const expectedFor = (test: (n: number) => boolean) => promptIds.filter((p) => test(named(p))).sort();
    expect(await filtered('all')).toEqual(expectedFor((n) => n === 6));
    expect(await filtered('none')).toEqual(expectedFor((n) => n === 0));
    expect(await filtered('some')).toEqual(expectedFor((n) => n > 0 && n < 6));
    const split = promptIds
      .filter((p) => ['openai', 'perplexity'].some((k) => named(p, k) > 0 && named(p, k) < 3))
      .sort();
    expect(await filtered('split')).toEqual(split);

    // The prompt's detail: each assistant's latest answer with its scan's samples.
    const detail = (await app.request('GET', `/projects/${siteId}/prompts/${promptIds[0]}`, { key: ws.keys.viewer }))
      .body;
    expect(detail.latestAnswers.openai).toMatchObject({
      samples: 3,
      answered: 3,
      named: named(promptIds[0] as number, 'openai'),
    });
    expect(detail.results).toHaveLength(6);
    expect(detail.prompt.consistency.answered).toBe(6);
  });

  it('saved settings carry samples, and scheduled or saved scans use them', async () => {
    const { siteId } = await newSite('Saved', ['Which Saved tool is best?']);
    const patch = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.admin,
      body: { scanSettings: { providers: ['gemini'], samples: 2 } },
    });
    expect(patch.body.project.scanSettings).toMatchObject({ providers: ['gemini'], samples: 2 });
    const options = await app.request('GET', `/projects/${siteId}/scan-options`, { key: ws.keys.viewer });
    expect(options.body.saved.samples).toBe(2);
    expect(
      (await app.request('POST', `/projects/${siteId}/scans/estimate`, { key: ws.keys.viewer, body: { saved: true } }))
        .body,
    ).toMatchObject({ answers: 2, samples: 2 });
    expect(
      (
        await app.request('POST', `/projects/${siteId}/scans/estimate`, {
          key: ws.keys.viewer,
          body: { saved: true, samples: 4 },
        })
      ).body,
    ).toMatchObject({ answers: 4 });
    // Without `saved`, a request asks once unless it says otherwise.
    expect(
      (
        await app.request('POST', `/projects/${siteId}/scans/estimate`, {
          key: ws.keys.viewer,
          body: { providers: ['gemini'] },
        })
      ).body,
    ).toMatchObject({
      answers: 1,
      samples: 1,
    });
  });

  it('stops at the budget sample by sample, and charges only what it stored', async () => {
    const { siteId } = await newSite('Budget', [
      'Which Budget tool is best for a?',
      'Which Budget tool is best for b?',
      'Which Budget tool is best for c?',
    ]);
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['perplexity'], samples: 3, budgetUsd: (4 * price('perplexity')) / 1e6 },
    });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    expect(done.scan).toMatchObject({
      status: 'done',
      stopReason: 'budget',
      answersDone: 4,
      costUsd: (4 * price('perplexity')) / 1e6,
    });
    // First every prompt's first sample, then second samples.
    const samples = await app.ctx.db
      .selectFrom('answers')
      .select('sample')
      .where('scanId', '=', start.body.scan.id)
      .execute();
    expect(samples.map((s) => s.sample).sort()).toEqual([1, 1, 1, 2]);
    expect((await checkMoney(app.ctx)).problems).toEqual([]);
  });

  it('batch models submit every sample once and store each from the results', async () => {
    const { siteId } = await newSite('Batched', ['Which Batched tool is best?', 'Which Batched tool is cheapest?']);
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['anthropic'], batch: true, samples: 2 },
    });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id, 30_000);
    expect(done.scan).toMatchObject({ status: 'done', answersDone: 4, samples: 2 });
    const batches = await app.ctx.db
      .selectFrom('scanBatches')
      .select('items')
      .where('scanId', '=', start.body.scan.id)
      .execute();
    expect(batches.flatMap((b) => b.items.map((i) => `${i.id}:${i.sample}`)).length).toBe(4);
    const stored = await app.ctx.db
      .selectFrom('answers')
      .select(['promptId', 'sample'])
      .where('scanId', '=', start.body.scan.id)
      .execute();
    expect(stored.map((a) => a.sample).sort()).toEqual([1, 1, 2, 2]);
    expect((await checkMoney(app.ctx)).problems).toEqual([]);
  });
});

describe('resuming a scan with samples', () => {
  it('never asks a sample that is already stored', async () => {
    const { siteId, promptIds } = await newSite('Resumed', [
      'Which Resumed tool is best?',
      'Which Resumed tool is cheapest?',
    ]);
    // Its job delayed past the test: it runs here, by hand, after a "previous run" stored some samples.
    const site = await app.ctx.db.selectFrom('sites').selectAll().where('id', '=', siteId).executeTakeFirstOrThrow();
    const start = await startScan(app.ctx, site, ws.users.admin, { providers: ['gemini'], samples: 3 }, 'manual', {
      delayMs: 600_000,
    });
    const scanId = start.scan.id;
    // A previous run stored samples 1 and 3 of the first prompt (uncharged here: no money was reserved for them).
    const book = await loadBrandBook(app.ctx.db, siteId);
    const base = { ...answerOf(scanId, siteId, 'gemini'), text: 'Resumed is fine.' };
    await storeAnswers(
      app.ctx,
      [1, 3].map((sample) => ({ ...base, promptId: promptIds[0] as number, sample })),
      book,
    );
    const before = await simulatorRequests();
    expect(await runScan(app.ctx, scanId)).toEqual({ status: 'done' });
    const stored = await app.ctx.db
      .selectFrom('answers')
      .select(['promptId', 'sample'])
      .where('scanId', '=', scanId)
      .execute();
    expect(stored.map((a) => `${a.promptId}|${a.sample}`).sort()).toEqual(
      promptIds.flatMap((p) => [1, 2, 3].map((s) => `${p}|${s}`)).sort(),
    );
    // Six answers in all, two already there: four asked. Run again, nothing is asked.
    expect(await simulatorRequests()).toBe(before + 4);
    await runScan(app.ctx, scanId);
    expect(await simulatorRequests()).toBe(before + 4);
    expect((await checkMoney(app.ctx)).problems).toEqual([]);
  });
});

describe('raw responses', () => {
  it('are stored as the JSON text they came in, and a missing or null one as SQL NULL', async () => {
    const { siteId, promptIds } = await newSite('Rawtext', ['Which Rawtext tool is best?']);
    const site = await app.ctx.db.selectFrom('sites').selectAll().where('id', '=', siteId).executeTakeFirstOrThrow();
    const { scan } = await startScan(app.ctx, site, ws.users.admin, { providers: ['openai'], samples: 3 }, 'manual', {
      delayMs: 600_000,
    });
    // As a provider sent it: spacing, a duplicate key and a number's spelling that parsing and serialising would change.
    const text = '{ "id":"resp_1",  "n": 1.50, "id":"resp_2" ,"output":[ ]}';
    const raw: unknown = JSON.parse(text);
    keepRawText(raw, text);
    const base = { ...answerOf(scan.id, siteId, 'openai'), promptId: promptIds[0] as number, text: 'Rawtext is fine.' };
    await storeAnswers(
      app.ctx,
      [
        { ...base, sample: 1, raw },
        { ...base, sample: 2, raw: null },
        { ...base, sample: 3 },
      ],
      await loadBrandBook(app.ctx.db, siteId),
    );
    const { rows } = await sql<{ sample: number; raw: string | null }>`
      SELECT sample, raw::text AS raw FROM answers WHERE scan_id = ${scan.id} ORDER BY sample`.execute(app.ctx.db);
    expect(rows).toEqual([
      { sample: 1, raw: text },
      { sample: 2, raw: null },
      { sample: 3, raw: null },
    ]);
  });
});
