import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/** `sightline webhooks ...` as separate processes against this file's database. */

const run = promisify(execFile);
const NODE = path.resolve('node_modules/.bin/node');
const CLI = path.resolve('src/cli/main.ts');
let app: TestApp;
let ws: Org;

async function sightline(args: string[]) {
  try {
    const { stdout } = await run(NODE, [CLI, 'webhooks', ...args], { env: { ...process.env, ...app.env } });
    return {
      code: 0,
      json: JSON.parse(stdout) as Record<string, unknown> & { webhook?: Record<string, unknown> },
      stderr: '',
    };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, json: null, stderr: e.stderr };
  }
}

beforeAll(async () => {
  app = await startTestApp({ env: { SITE_FETCH_MAP: 'hooks.test=http://127.0.0.1:9', SITE_JOB_WAIT_MS: '0' } });
  ws = await seedOrg(app.ctx);
});
afterAll(() => app.close());

describe('sightline webhooks', { timeout: 120_000 }, () => {
  it('creates (printing the secret once), lists, changes, tests, rotates, lists deliveries and deletes', async () => {
    const org = String(ws.orgId);
    const made = await sightline([
      'create',
      '--org',
      org,
      '--url',
      'https://hooks.test/cli',
      '--events',
      'scan.completed,webhook.test',
      '--format',
      'slack',
    ]);
    expect(made.code).toBe(0);
    expect(made.json?.webhook).toMatchObject({
      url: 'https://hooks.test/cli',
      events: ['scan.completed', 'webhook.test'],
      format: 'slack',
      secret: expect.stringMatching(/^whsec_/),
    });
    const id = String(made.json?.webhook?.id);
    const listed = await sightline(['list', '--org', org]);
    expect(listed.json).toMatchObject({ total: 1, webhooks: [{ id: Number(id) }] });
    expect(JSON.stringify(listed.json)).not.toContain('whsec_');
    const changed = await sightline(['update', '--org', org, '--webhook', id, '--events', 'all', '--enabled', 'false']);
    expect(changed.json?.webhook).toMatchObject({
      events: ['*'],
      enabled: false,
      disabledReason: 'disabled by a person',
    });
    await sightline(['update', '--org', org, '--webhook', id, '--enabled', 'true']);
    const tested = await sightline(['test', '--org', org, '--webhook', id]);
    expect(tested.stderr, tested.stderr).toBe('');
    expect(tested.json).toMatchObject({ event: { type: 'webhook.test' }, delivery: { status: 'pending' } });
    const rotated = await sightline(['rotate-secret', '--org', org, '--webhook', id]);
    expect(rotated.json?.webhook?.secret).not.toBe(made.json?.webhook?.secret);
    const deliveries = await sightline(['deliveries', '--org', org, '--webhook', id, '--per-page', '5']);
    expect(deliveries.json).toMatchObject({ total: 1, perPage: 5, deliveries: [{ type: 'webhook.test' }] });
    const gone = await sightline(['delete', '--org', org, '--webhook', id]);
    expect(gone.json).toMatchObject({ deleted: true });
  });

  it('refuses a bad address or event naming the flag, with exit code 2', async () => {
    const bad = await sightline(['create', '--org', String(ws.orgId), '--url', 'http://hooks.test/x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--url: must be an https address');
    const events = await sightline([
      'create',
      '--org',
      String(ws.orgId),
      '--url',
      'https://hooks.test/x',
      '--events',
      'scan.done',
    ]);
    expect(events.code).toBe(2);
    expect(events.stderr).toContain('--events:');
  });
});
