import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intraclassCorrelation, smallestRealChange } from '../../src/analysis/sampling.ts';
import { importAnswers } from '../../src/domain/scans/answer-import.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * GET /projects/:id/sampling-plan: samples per prompt and assistant for a
 * move of `detect` points to be called real, from the site's prompts, its
 * saved assistants and the spread of its past answers, priced like the scan
 * estimate.
 */

let app: TestApp;
let ws: Org;
let siteId: number;
const PROMPTS = 20;
/** Prompt n names the brand in (n % 7) of its 6 answers this month: prompts differ a lot, as real ones do. */
const namedOf = (n: number) => n % 7;

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
  const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Acme', url: 'acme.com' },
  });
  siteId = site.body.project.id;
  await app.request('PATCH', `/projects/${siteId}`, {
    key: ws.keys.admin,
    body: { scanSettings: { providers: ['openai', 'anthropic'] } },
  });
  const now = new Date().toISOString();
  // Three imports (scans) of 20 prompts x 2 assistants: 6 answers per prompt this month.
  for (let round = 0; round < 3; round++) {
    await importAnswers(
      app.ctx,
      ws.orgId,
      siteId,
      Array.from({ length: PROMPTS }, (_, n) =>
        (['openai', 'anthropic'] as const).map((provider, p) => ({
          prompt: `Sampling question ${n} about tools?`,
          provider,
          askedAt: now,
          text: round * 2 + p < namedOf(n) ? 'Acme is the pick.' : 'Globex is the pick.',
          citations: [],
          searches: [],
        })),
      ).flat(),
    );
  }
});
afterAll(() => app.close());

const plan = (detect: string | number, id = siteId) =>
  app.request('GET', `/projects/${id}/sampling-plan?detect=${detect}`, { key: ws.keys.viewer });

describe('sampling plan', () => {
  it('measures the site’s spread, finds the fewest samples that call the move real, and prices scans as the estimate does', async () => {
    const res = await plan(10);
    expect(res.status).toBe(200);
    const clusters = Array.from({ length: PROMPTS }, (_, n) => [namedOf(n), 6] as [number, number]);
    const icc = intraclassCorrelation(clusters) as number;
    const share = clusters.reduce((s, c) => s + c[0], 0) / (PROMPTS * 6);
    expect(res.body).toMatchObject({
      detect: 10,
      prompts: PROMPTS,
      assistants: ['openai', 'anthropic'],
      visibility: Math.round(share * 1000) / 10,
      spread: { prompts: PROMPTS, answers: PROMPTS * 6, intraPromptCorrelation: Math.round(icc * 1000) / 1000 },
      assumed: false,
    });
    expect(res.body.options).toHaveLength(5);
    for (const o of res.body.options) {
      expect(o.smallestRealChange).toBe(smallestRealChange(PROMPTS, 2 * o.samples, share, icc));
      expect(o.detects).toBe(o.smallestRealChange !== null && o.smallestRealChange <= 10);
      const estimate = await app.request('POST', `/projects/${siteId}/scans/estimate`, {
        key: ws.keys.viewer,
        body: { saved: true, samples: o.samples },
      });
      expect(o.costUsd).toBe(estimate.body.cost);
      expect(o.answers).toBe(estimate.body.answers);
    }
    const first = res.body.options.find((o: { detects: boolean }) => o.detects);
    expect(res.body.samples).toBe(first?.samples ?? null);
    expect(res.body.estimate.samples).toBe(res.body.samples ?? 5);
  });

  it('a large move needs one sample; a tiny one more than scans allow, and says so', async () => {
    expect((await plan(50)).body).toMatchObject({ samples: 1, samplesNeeded: 1 });
    const tiny = await plan(0.5);
    expect(tiny.body.samples).toBeNull();
    expect(tiny.body.note).toMatch(/at most 5 samples|would not be enough/);
  });

  it('with no answers yet, assumes the hardest case and says so', async () => {
    const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Fresh', url: 'fresh.com' },
    });
    const res = await plan(10, site.body.project.id);
    expect(res.body).toMatchObject({ visibility: null, spread: null, assumed: true, prompts: 0, samples: null });
    expect(res.body.note).toMatch(/no active prompts/);
  });

  it('validates detect', async () => {
    for (const bad of ['0', 'abc', '51']) {
      const res = await plan(bad);
      expect(res.status, bad).toBe(422);
      expect(Object.keys(res.body.fields)).toEqual(['detect']);
    }
    expect((await app.request('GET', `/projects/${siteId}/sampling-plan`, { key: ws.keys.viewer })).body.detect).toBe(
      5,
    );
  });
});
