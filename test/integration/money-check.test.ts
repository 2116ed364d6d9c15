import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMoney } from '../../src/domain/scans/money-check.ts';
import { runScan } from '../../src/domain/scans/run.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts } from '../helpers/scans.ts';

const run = promisify(execFile);
let app: TestApp;
let ws: Org;
let scanId: number;

beforeAll(async () => {
  app = await startTestApp({ simulator: true });
  ws = await seedOrg(app.ctx, { balanceUsd: 20 });
  const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Ledger', url: 'ledger.com' },
  });
  await addActivePrompts(app.ctx, site.body.project.id, ['Which Ledger tool?', 'Is Ledger good?']);
  const start = await app.request('POST', `/projects/${site.body.project.id}/scans`, {
    key: ws.keys.admin,
    body: { providers: ['openai', 'perplexity'] },
  });
  scanId = start.body.scan.id;
  await runScan(app.ctx, scanId);
});
afterAll(() => app?.close());

async function cli(): Promise<{ code: number; report: { ok: boolean; problems: { problem: string }[] } }> {
  const args = [path.resolve('src/cli/main.ts'), 'money', 'check'];
  try {
    const { stdout } = await run(path.resolve('node_modules/.bin/node'), args, { env: { ...process.env, ...app.env } });
    return { code: 0, report: JSON.parse(stdout) };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, report: JSON.parse(e.stdout) };
  }
}

describe('money check', () => {
  it('finds nothing wrong after a scan, in the domain and from the CLI', async () => {
    expect(await checkMoney(app.ctx)).toMatchObject({ ok: true, problems: [] });
    expect(await cli()).toMatchObject({ code: 0, report: { ok: true } });
  });

  it('names each broken invariant, and the CLI exits 1', async () => {
    const answer = await app.ctx.db
      .selectFrom('answers')
      .select('id')
      .where('scanId', '=', scanId)
      .orderBy('id')
      .executeTakeFirstOrThrow();
    await app.ctx.db.transaction().execute(async (trx) => {
      await trx.updateTable('orgs').set({ balanceMicros: 1 }).where('id', '=', ws.orgId).execute();
      await trx.updateTable('scans').set({ reservedMicros: 5 }).where('id', '=', scanId).execute();
      await trx.deleteFrom('ledgerEntries').where('answerId', '=', answer.id).execute();
    });
    const problems = (await checkMoney(app.ctx)).problems.map((p) => p.problem);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/is not the ledger's sum/),
        expect.stringMatching(/is not what its scans hold/),
        expect.stringMatching(/still holds 5 reserved \(orphaned\)/),
        expect.stringMatching(/but was charged/),
        expect.stringMatching(new RegExp(`answer ${answer.id} costs \\d+ but has 0 charge`)),
      ]),
    );
    const res = await cli();
    expect(res.code).toBe(1);
    expect(res.report.ok).toBe(false);
  });
});
