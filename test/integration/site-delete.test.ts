import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteSite } from '../../src/domain/sites/delete.ts';
import { checkMoney } from '../../src/domain/scans/money-check.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts, waitForScan } from '../helpers/scans.ts';

/**
 * `sightline site delete` (issue 17): a site goes with every row of it, in
 * every table that has a site_id (found in information_schema, so a table
 * added later cannot be missed), rollups included; another site of the same
 * workspace keeps every row; the ledger keeps every entry.
 */

const run = promisify(execFile);
const NODE = path.resolve('node_modules/.bin/node');
const CLI = path.resolve('src/cli/main.ts');
let app: TestApp;
let ws: Org;

async function sightline(
  args: string[],
): Promise<{ code: number; json: Record<string, unknown> | null; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(NODE, [CLI, ...args], { env: { ...process.env, ...app.env } });
    return {
      code: 0,
      json: stdout.startsWith('{') ? (JSON.parse(stdout) as Record<string, unknown>) : null,
      stdout,
      stderr,
    };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, json: null, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Every table with a site_id column (partitions included), and its rows of the site. */
async function rowsPerTable(siteId: number): Promise<Record<string, number>> {
  const { rows: tables } = await sql<{ tableName: string }>`
    SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
     WHERE c.table_schema = 'public' AND c.column_name = 'site_id' AND t.table_type = 'BASE TABLE' ORDER BY 1`.execute(
    app.ctx.db,
  );
  const out: Record<string, number> = {};
  for (const { tableName } of tables) {
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM ${sql.table(tableName)} WHERE site_id = ${siteId}`.execute(app.ctx.db);
    out[tableName] = rows[0]?.n ?? 0;
  }
  return out;
}

/** A site with something in every feature: competitors, prompts, categories, a persona, an event, a share link, a scan's answers and rollups, a reanalysis. */
async function busySite(name: string): Promise<number> {
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name, url: `${name.toLowerCase()}.com`, competitors: [{ name: 'Globex', domain: 'globex.com' }] },
  });
  const siteId = res.body.project.id as number;
  await addActivePrompts(app.ctx, siteId, [
    'Best CRM for a small team?',
    'Cheapest CRM?',
    'Which CRM has the best API?',
  ]);
  expect(
    (await app.request('POST', `/projects/${siteId}/categories`, { key: ws.keys.member, body: { name: 'Pricing' } }))
      .status,
  ).toBe(200);
  expect(
    (
      await app.request('POST', `/projects/${siteId}/personas`, {
        key: ws.keys.member,
        body: { name: 'Ops lead', context: 'I run ops.' },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await app.request('POST', `/projects/${siteId}/events`, {
        key: ws.keys.member,
        body: { title: 'Launch', date: '2026-11-02', type: 'site' },
      })
    ).status,
  ).toBe(200);
  expect(
    (await app.request('POST', `/projects/${siteId}/shares`, { key: ws.keys.admin, body: { label: 'Board' } })).status,
  ).toBe(200);
  const start = await app.request('POST', `/projects/${siteId}/scans`, {
    key: ws.keys.admin,
    body: { providers: ['openai', 'perplexity'] },
  });
  expect(start.status).toBe(200);
  await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
  expect((await app.request('POST', `/projects/${siteId}/reanalyse`, { key: ws.keys.member })).status).toBe(200);
  return siteId;
}

beforeAll(async () => {
  app = await startTestApp({ workers: true, simulator: true });
  ws = await seedOrg(app.ctx, { balanceUsd: 50 });
});
afterAll(() => app.close());

describe('sightline site delete', { timeout: 120_000 }, () => {
  it('removes the site from every table with a site_id, rollups included, and leaves the other site and the ledger whole', async () => {
    const doomed = await busySite('Doomed');
    const kept = await busySite('Kept');
    // Wait for the reanalyses to finish, so no job writes either site while we count.
    await expect
      .poll(
        async () =>
          (
            await app.ctx.db.selectFrom('reanalyses').select('status').where('siteId', 'in', [doomed, kept]).execute()
          ).every((r) => r.status === 'done'),
        {
          timeout: 30_000,
        },
      )
      .toBe(true);

    const before = await rowsPerTable(doomed);
    // The site really has rows in the big tables and in per-period rollups without a site_id key of their own before.
    for (const table of [
      'answers',
      'answer_facts',
      'scans',
      'prompts',
      'rollup_site_day',
      'rollup_prompt_period',
      'rollup_model_period',
      'rollup_source_period',
      'ledger_entries',
    ]) {
      expect(before[table], table).toBeGreaterThan(0);
    }
    const keptBefore = await rowsPerTable(kept);
    const ledgerBefore = await app.ctx.db
      .selectFrom('ledgerEntries')
      .select(['id', 'amountMicros', 'balanceAfterMicros', 'answerId'])
      .orderBy('id')
      .execute();

    const help = await sightline(['site', 'delete', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('site delete <siteId> --yes');
    const unconfirmed = await sightline(['site', 'delete', String(doomed)]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    expect((await rowsPerTable(doomed)).answers).toBe(before.answers);

    const deleted = await sightline(['site', 'delete', String(doomed), '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.json).toMatchObject({ id: doomed, deleted: true, answers: before.answers, prompts: 3 });

    const after = await rowsPerTable(doomed);
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
    expect(Object.keys(after)).toEqual(Object.keys(before));
    expect(await rowsPerTable(kept)).toEqual(keptBefore);
    // Money history stays: every entry, its amount and running balance; the site's are no longer tied to it.
    const ledgerAfter = await app.ctx.db
      .selectFrom('ledgerEntries')
      .select(['id', 'amountMicros', 'balanceAfterMicros', 'answerId'])
      .orderBy('id')
      .execute();
    expect(ledgerAfter).toEqual(ledgerBefore);
    expect((await checkMoney(app.ctx)).problems).toEqual([]);
    expect((await app.request('GET', `/projects/${doomed}`, { key: ws.keys.viewer })).status).toBe(404);
    expect((await app.request('GET', `/projects/${kept}/report`, { key: ws.keys.viewer })).body.report).not.toBeNull();

    const again = await sightline(['site', 'delete', String(doomed), '--yes']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`No project with id ${doomed}`);
  });

  it('sets a workspace’s retention and runs retention from the CLI', async () => {
    const set = await sightline(['org', 'retention', '--org', String(ws.orgId), '--months', '6']);
    expect(set.json).toEqual({ id: ws.orgId, retentionMonths: 6 });
    expect((await app.request('GET', `/orgs/${ws.orgId}`, { key: ws.keys.viewer })).body.org.retentionMonths).toBe(6);
    expect((await sightline(['org', 'retention', '--org', String(ws.orgId)])).code).toBe(2);
    expect((await sightline(['org', 'retention', '--org', String(ws.orgId), '--months', '0'])).code).toBe(2);
    const ran = await sightline(['retention', 'run']);
    expect(ran.code).toBe(0);
    // Nothing here is six months old: nothing deleted, the rollups of no site rebuilt.
    expect(ran.json).toMatchObject({ monthsDropped: [], deleted: [], rebuilt: [], busy: [] });
    const all = await sightline(['org', 'retention', '--org', String(ws.orgId), '--keep-all']);
    expect(all.json).toEqual({ id: ws.orgId, retentionMonths: null });
  });

  it('refuses while a scan of the site is active, and keys cannot delete a site', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Active', url: 'active.com' },
    });
    const siteId = res.body.project.id as number;
    const scan = await app.ctx.db
      .insertInto('scans')
      .values({ orgId: ws.orgId, siteId, status: 'queued' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await expect(deleteSite(app.ctx, siteId)).rejects.toMatchObject({ status: 409 });
    expect((await rowsPerTable(siteId)).scans).toBe(1);
    expect((await app.request('DELETE', `/projects/${siteId}`, { key: ws.keys.admin })).status).toBe(403);
    await app.ctx.db.updateTable('scans').set({ status: 'cancelled' }).where('id', '=', scan.id).execute();
    expect(await deleteSite(app.ctx, siteId)).toMatchObject({ id: siteId, deleted: true, answers: 0 });
    expect(Object.values(await rowsPerTable(siteId)).every((n) => n === 0)).toBe(true);
  });
});
