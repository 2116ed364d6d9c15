import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { createSite } from '../../src/domain/onboarding/new-site.ts';
import { seedOrg } from '../helpers/fixtures.ts';

const run = promisify(execFile);
const NODE = path.resolve('node_modules/.bin/node');
const CLI = path.resolve('src/cli/main.ts');
let app: TestApp;

/** Runs `sightline ...` as a separate process against this file's database. */
async function sightline(
  args: string[],
  cwd?: string,
): Promise<{ code: number; json: Record<string, unknown> | null; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(NODE, [CLI, ...args], { env: { ...process.env, ...app.env }, cwd });
    return { code: 0, json: JSON.parse(stdout) as Record<string, unknown>, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, json: null, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

// Each step is a separate process; under a loaded parallel run they add up.
describe('operator CLI', { timeout: 120_000 }, () => {
  it('creates a workspace, a person, a membership and a key that works against the API', async () => {
    const org = await sightline(['org', 'create', '--name', 'CLI Co', '--plan', 'starter', '--balance-usd', '12.5']);
    expect(org.code).toBe(0);
    expect(org.json).toMatchObject({ id: expect.any(Number), name: 'CLI Co', plan: 'starter', balanceUsd: 12.5 });
    const user = await sightline(['user', 'create', '--email', 'ops@example.com', '--name', 'Ops']);
    expect(user.json).toMatchObject({ id: expect.any(Number), email: 'ops@example.com' });
    const member = await sightline([
      'member',
      'add',
      '--org',
      String(org.json?.id),
      '--user',
      String(user.json?.id),
      '--role',
      'owner',
    ]);
    expect(member.json).toEqual({ orgId: org.json?.id, userId: user.json?.id, role: 'owner' });
    const key = await sightline([
      'key',
      'create',
      '--org',
      String(org.json?.id),
      '--user',
      String(user.json?.id),
      '--name',
      'ci',
    ]);
    expect(key.json).toMatchObject({
      id: expect.any(Number),
      key: expect.stringMatching(/^slk_[A-Za-z0-9_-]{40}$/),
      role: 'admin',
    });

    const who = await app.request('GET', '/whoami', { key: key.json?.key as string });
    expect(who.body).toMatchObject({
      kind: 'token',
      tokenName: 'ci',
      role: 'admin',
      org: { id: org.json?.id, plan: 'starter' },
    });

    const topup = await sightline(['balance', 'topup', '--org', String(org.json?.id), '--usd', '7.5']);
    expect(topup.json).toEqual({ orgId: org.json?.id, balanceUsd: 20 });

    const limits = await sightline(['org', 'limits', '--org', String(org.json?.id), '--sites', '7', '--members', '9']);
    expect(limits.json).toMatchObject({ limits: { sites: 7, promptsPerSite: 150, scansPerMonth: 300, members: 9 } });

    const shown = await sightline(['org', 'limits', '--org', String(org.json?.id)]);
    expect(shown.json).toMatchObject({ limits: { sites: 7, members: 9 } });

    const branding = await sightline([
      'org',
      'branding',
      '--org',
      String(org.json?.id),
      '--report-name',
      'CLI Reports',
      '--report-logo',
      'https://cdn.example.com/logo.png',
    ]);
    expect(branding.json).toEqual({
      id: org.json?.id,
      reportName: 'CLI Reports',
      reportLogo: 'https://cdn.example.com/logo.png',
    });

    const revoke = await sightline(['key', 'revoke', '--id', String(key.json?.id)]);
    expect(revoke.code).toBe(0);
    expect((await app.request('GET', '/whoami', { key: key.json?.key as string })).status).toBe(401);

    const removed = await sightline([
      'member',
      'remove',
      '--org',
      String(org.json?.id),
      '--user',
      String(user.json?.id),
    ]);
    expect(removed.json).toEqual({ orgId: org.json?.id, userId: user.json?.id, removed: true });
  });

  it('gives a key the member’s own role and refuses more', async () => {
    const org = await sightline(['org', 'create', '--name', 'Roles Co']);
    const user = await sightline(['user', 'create', '--email', 'viewer@example.com', '--name', 'V']);
    await sightline([
      'member',
      'add',
      '--org',
      String(org.json?.id),
      '--user',
      String(user.json?.id),
      '--role',
      'viewer',
    ]);
    const key = await sightline([
      'key',
      'create',
      '--org',
      String(org.json?.id),
      '--user',
      String(user.json?.id),
      '--name',
      'v',
    ]);
    expect(key.json?.role).toBe('viewer');
    const refused = await sightline([
      'key',
      'create',
      '--org',
      String(org.json?.id),
      '--user',
      String(user.json?.id),
      '--name',
      'v',
      '--role',
      'admin',
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/more access/);
    expect(refused.stdout).toBe('');
  });

  it.each([
    [['org', 'create'], /--name/],
    [['org', 'create', '--name', 'X', '--plan', 'gold'], /--plan/],
    [['key', 'create', '--org', 'abc', '--user', '1', '--name', 'x'], /--org/],
    [['user', 'create', '--email', 'nope', '--name', 'x'], /--email/],
    [['member', 'add', '--org', '1', '--user', '1', '--role', 'boss'], /--role/],
    [['org', 'create', '--name', 'X', '--bogus'], /bogus/],
    [['frobnicate'], /unknown command/],
  ])('fails with a clear message and non-zero exit for %j', async (args, message) => {
    const res = await sightline(args);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).toBe('');
  });

  it('prints usage for --help (exit 0) and refuses unknown flags with the usage (exit 2)', async () => {
    const help = await run(NODE, [CLI, '--help'], { env: { ...process.env, ...app.env } });
    expect(help.stdout).toMatch(/usage: sightline <command>/);
    expect(help.stdout).toMatch(/key revoke --id ID/);
    const one = await run(NODE, [CLI, 'scan', 'start', '--help'], { env: { ...process.env, ...app.env } });
    expect(one.stdout).toMatch(/^usage: sightline scan start --project ID/);
    const bad = await sightline(['key', 'revoke', '--id', '1', '--force']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown option '--force'[\s\S]*usage: sightline key revoke --id ID/);
    expect((await sightline([])).code).toBe(2);
  });

  it('re-reads every stored answer with reanalyse --all, with a progress line, and refuses a bad choice of sites', async () => {
    const ws = await seedOrg(app.ctx);
    const site = await createSite(
      app.ctx,
      { orgId: ws.orgId, userId: ws.ownerId },
      { name: 'Rereader', url: 'rereader.com' },
    );
    await seedAnswers(app.ctx, ws.orgId, site.id, [
      { text: 'Rereader is the one to pick.' },
      { text: 'Nothing to see.' },
    ]);
    // Facts of an older rule set: the command must rewrite them.
    await app.ctx.db.updateTable('answerFacts').set({ brandKey: 'v0:old' }).where('siteId', '=', site.id).execute();
    const res = await sightline(['reanalyse', '--project', String(site.id)]);
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({ sites: 1, answers: 2 });
    expect(res.stderr).toMatch(/\[#+\] 2\/2 answers {2}1\/1 sites/);
    const keys = await app.ctx.db.selectFrom('answerFacts').select('brandKey').where('siteId', '=', site.id).execute();
    expect(keys.every((k) => k.brandKey !== 'v0:old')).toBe(true);
    expect((await sightline(['reanalyse', '--all'])).code).toBe(0);
    expect((await sightline(['reanalyse'])).code).toBe(2);
    expect((await sightline(['reanalyse', '--all', '--project', '1'])).code).toBe(2);
    expect((await sightline(['reanalyse', '--project', '999999'])).stderr).toMatch(/No project with id 999999/);
  });

  it('prints how a project’s names are read and its corrections, as the API answers them', async () => {
    const ws = await seedOrg(app.ctx);
    const site = await createSite(
      app.ctx,
      { orgId: ws.orgId, userId: ws.ownerId },
      { name: 'Notion', url: 'notion.so' },
    );
    await seedAnswers(app.ctx, ws.orgId, site.id, [
      { text: 'Teams write their notion of done first.' },
      { text: 'Many teams document work in Notion.' },
    ]);
    const answer = await app.ctx.db
      .selectFrom('answers')
      .select('id')
      .where('siteId', '=', site.id)
      .where('text', 'like', '%notion of%')
      .executeTakeFirstOrThrow();
    const post = await app.request('POST', `/projects/${site.id}/mention-feedback`, {
      key: ws.keys.member,
      body: { answerId: answer.id, name: 'Notion', mentioned: false },
    });
    expect(post.status).toBe(200);
    const list = await sightline(['names', 'list', '--project', String(site.id)]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json).toEqual((await app.request('GET', `/projects/${site.id}/names`, { key: ws.keys.viewer })).body);
    expect(list.json).toMatchObject({
      names: [
        { name: 'Notion', ambiguous: true, countedIn: 1, refusedIn: 1, precision: { corrections: 1, value: 100 } },
      ],
    });
    const corrections = await sightline(['names', 'corrections', '--project', String(site.id), '--name', 'notion']);
    expect(corrections.json).toEqual(
      (await app.request('GET', `/projects/${site.id}/mention-feedback?name=notion`, { key: ws.keys.viewer })).body,
    );
    expect(corrections.json).toMatchObject({
      feedback: [{ answerId: answer.id, mentioned: false, readingAgreed: true }],
      total: 1,
    });
    expect((await sightline(['names', 'corrections', '--project', String(site.id), '--per-page', '1'])).code).toBe(2);
    expect((await sightline(['names', 'list', '--project', '999999'])).stderr).toMatch(/No project with id 999999/);
  });

  it('reports a missing workspace as an error, not a crash', async () => {
    const res = await sightline(['balance', 'topup', '--org', '999999', '--usd', '1']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/No workspace with id 999999/);
  });

  it('seeds the demo once and prints a key that works, the same key on the next run', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sightline-demo-'));
    const first = await sightline(['demo'], dir);
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({
      created: true,
      key: expect.stringMatching(/^slk_/),
      projectId: expect.any(Number),
    });
    const who = await app.request('GET', '/whoami', { key: first.json?.key as string });
    expect(who.body).toMatchObject({ role: 'admin', org: { name: 'Demo workspace' } });
    const second = await sightline(['demo'], dir);
    expect(second.json).toMatchObject({ created: false, key: first.json?.key, orgId: first.json?.orgId });
    expect(JSON.parse(await readFile(path.join(dir, '.sightline/demo.json'), 'utf8')).key).toBe(first.json?.key);
    const sites = await app.request('GET', `/orgs/${first.json?.orgId}/projects`, {
      key: first.json?.key as string,
    });
    expect(sites.body.projects[0]).toMatchObject({ name: 'Brightdesk', domain: 'brightdesk.com' });
    expect(sites.body.projects[0].competitors).toHaveLength(4);
  });
});

describe('config', () => {
  it('reports every configuration problem in one error at boot', async () => {
    const { code, stderr } = await run(NODE, [CLI, 'migrate'], {
      env: { ...process.env, ...app.env, PORT: 'abc', API_VARIANT: 'C', DATABASE_URL: 'mysql://x' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/PORT/);
    expect(stderr).toMatch(/API_VARIANT/);
    expect(stderr).toMatch(/DATABASE_URL/);
  });
});
