import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts, script, waitForScan } from '../helpers/scans.ts';

/**
 * Answers an attacker wrote, through real scans, imports and reanalysis
 * (issue 24): analysis never holds them up. The text is stored whole; its
 * facts say how much of it analysis read, or that it could not be read in
 * time. test/unit/analysis holds the analysis's own cases.
 */

interface AnswerView {
  id: number;
  text: string | null;
  mentioned: boolean;
  verdict: string;
  brands: unknown[];
  truncated: boolean;
  analysis: { readChars: number; truncated: boolean; timedOut: boolean };
}

let sites = 0;
async function newSite(app: TestApp, ws: Org, prompts: string[]): Promise<number> {
  const url = `acme${++sites}.com`;
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Acme', url, competitors: [{ name: 'Globex', domain: 'globex.com' }] },
  });
  await addActivePrompts(app.ctx, res.body.project.id, prompts);
  return res.body.project.id;
}

async function scanAnswers(app: TestApp, ws: Org, siteId: number, scanId: number): Promise<AnswerView[]> {
  return (await app.request('GET', `/projects/${siteId}/scans/${scanId}`, { key: ws.keys.viewer })).body.answers;
}

/** "Acme is good", then 200 KB of spaces, then more, in one sentence: 29 s and more in analysis before issue 24. */
const REVIEW_TEXT = `Acme is good${' '.repeat(200 * 1024)}x`;
/** Under the cap, and heavy: some 6,600 sentences naming the brand, each scored. Well over a millisecond to read. */
const HEAVY_TEXT = 'Acme is great, and Globex is fine. '.repeat(2800);

describe('a scan of hostile answers', () => {
  let app: TestApp;
  let ws: Org;
  beforeAll(async () => {
    app = await startTestApp({ workers: true, simulator: true });
    ws = await seedOrg(app.ctx, { balanceUsd: 100 });
  });
  afterAll(() => app.close());

  it('finishes at once; each answer is stored whole and says analysis read its first 100,000 characters', async () => {
    const siteId = await newSite(app, ws, ['Which hostile tool is best?', 'Which hostile tool is cheapest?']);
    await script(app, { provider: null, match: 'hostile', text: REVIEW_TEXT });
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai'] },
    });
    expect(start.status).toBe(200);
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id, 60_000);
    expect(done.scan).toMatchObject({ status: 'done', answersDone: 2, answersFailed: 0 });
    const answers = await scanAnswers(app, ws, siteId, start.body.scan.id);
    expect(answers).toHaveLength(2);
    for (const a of answers) {
      // The reply itself was cut at the 200 KB size cap before it was stored; what was stored is shown whole.
      expect(a.truncated).toBe(true);
      expect(a.text?.startsWith('Acme is good')).toBe(true);
      expect(a.text?.length).toBeGreaterThan(200_000);
      expect(a).toMatchObject({ mentioned: true, verdict: 'named', analysis: { truncated: true, timedOut: false } });
      expect(a.analysis.readChars).toBeLessThanOrEqual(100_000);
    }
  }, 90_000);

  it('shows facts written before analysis was capped as read whole (nothing read of a failed answer)', async () => {
    const siteId = await newSite(app, ws, []);
    const imported = await seedAnswers(app.ctx, ws.orgId, siteId, [
      { prompt: 'Which older tool is best?', text: 'Acme is fine.' },
      { prompt: 'Which older tool is cheapest?', text: null, error: 'timeout' },
    ]);
    await app.ctx.db.updateTable('answerFacts').set({ readChars: null }).where('siteId', '=', siteId).execute();
    const answers = await scanAnswers(app, ws, siteId, imported.scanId);
    expect(answers.map((a) => a.analysis)).toEqual([
      { readChars: 'Acme is fine.'.length, truncated: false, timedOut: false },
      { readChars: 0, truncated: false, timedOut: false },
    ]);
  });
});

describe('an analysis deadline of 1 ms', () => {
  let app: TestApp;
  let ws: Org;
  beforeAll(async () => {
    app = await startTestApp({ workers: true, simulator: true, env: { ANALYSIS_TIMEOUT_MS: '1' } });
    ws = await seedOrg(app.ctx, { balanceUsd: 100 });
  });
  afterAll(() => app.close());

  it('a scan still finishes; the answers that could not be read in time say so, and are logged by id without their text', async () => {
    const warn = vi.spyOn(app.ctx.logger, 'warn');
    const siteId = await newSite(app, ws, ['Which heavy tool is best?', 'Which heavy tool is cheapest?']);
    await script(app, { provider: null, match: 'heavy', text: HEAVY_TEXT });
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai'] },
    });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id, 60_000);
    expect(done.scan).toMatchObject({ status: 'done', answersDone: 2, answersFailed: 0 });
    const answers = await scanAnswers(app, ws, siteId, start.body.scan.id);
    for (const a of answers) {
      // Stored whole (the simulator adds its citation links after the text).
      expect(a.text?.startsWith(HEAVY_TEXT)).toBe(true);
      expect(a).toMatchObject({
        mentioned: false,
        verdict: 'missing',
        brands: [],
        analysis: { readChars: 0, truncated: false, timedOut: true },
      });
    }
    const logged = warn.mock.calls.filter(([, msg]) => typeof msg === 'string' && msg.includes('time limit'));
    expect(logged.map(([fields]) => (fields as { answerId: number }).answerId).sort()).toEqual(
      answers.map((a) => a.id).sort(),
    );
    expect(logged[0]?.[0]).toMatchObject({ scanId: start.body.scan.id, siteId, timeoutMs: 1 });
    expect(JSON.stringify(logged)).not.toContain('Acme is great');
    warn.mockRestore();
  }, 90_000);

  it('imported answers and their reanalysis likewise: the reanalysis finishes and tries them again', async () => {
    const siteId = await newSite(app, ws, []);
    const imported = await seedAnswers(app.ctx, ws.orgId, siteId, [
      { prompt: 'Which heavy import is best?', text: HEAVY_TEXT },
      { prompt: 'Which heavy import is cheapest?', text: HEAVY_TEXT, provider: 'anthropic' },
    ]);
    const importedFacts = await scanAnswers(app, ws, siteId, imported.scanId);
    expect(importedFacts.map((a) => a.analysis.timedOut)).toEqual([true, true]);

    const requested = await app.request('POST', `/projects/${siteId}/reanalyse`, { key: ws.keys.member });
    expect(requested.status).toBe(200);
    let reanalysis = requested.body.reanalysis;
    const deadline = Date.now() + 60_000;
    while (reanalysis.state !== 'done' && reanalysis.state !== 'failed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      reanalysis = (await app.request('GET', reanalysis.poll, { key: ws.keys.viewer })).body.reanalysis;
    }
    // Facts that could not be read are never current: the reanalysis read both answers again.
    expect(reanalysis).toMatchObject({ state: 'done', answers: 2, verdictsChanged: 0 });
    const keys = await app.ctx.db
      .selectFrom('answerFacts')
      .select(['brandKey', 'readTimedOut'])
      .where('siteId', '=', siteId)
      .execute();
    expect(keys.every((k) => k.readTimedOut && k.brandKey.endsWith(':unread'))).toBe(true);
    const after = await scanAnswers(app, ws, siteId, imported.scanId);
    expect(after.map((a) => a.analysis.timedOut)).toEqual([true, true]);
  }, 90_000);
});
