import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '../../src/domain/onboarding/new-site.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg } from '../helpers/fixtures.ts';

/**
 * `sightline logs import` and `sightline crawlers ranges load` as separate
 * processes: a gzip log streamed from a file (again: every request a
 * duplicate), a truncated one (exit 1, the import failed with its lines
 * counted), the companies' published ranges by file name or --agent.
 */

const run = promisify(execFile);
const NODE = path.resolve('node_modules/.bin/node');
const CLI = path.resolve('src/cli/main.ts');
let app: TestApp;
let siteId: number;
let dir: string;

async function sightline(args: string[]) {
  try {
    const { stdout, stderr } = await run(NODE, [CLI, ...args], { env: { ...process.env, ...app.env } });
    return { code: 0, json: JSON.parse(stdout) as Record<string, any>, stderr }; // eslint-disable-line @typescript-eslint/no-explicit-any -- printed JSON, asserted on by shape
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, json: e.stdout ? (JSON.parse(e.stdout) as Record<string, any>) : null, stderr: e.stderr }; // eslint-disable-line @typescript-eslint/no-explicit-any -- as above
  }
}

const UA = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const lines = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `198.51.100.${i % 200} - - [24/Nov/2026:10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} +0000] "GET /p/${i} HTTP/1.1" 200 10 "-" "${UA}"`,
  ).join('\n');

beforeAll(async () => {
  app = await startTestApp();
  const ws = await seedOrg(app.ctx);
  siteId = (
    await createSite(
      app.ctx,
      { orgId: ws.orgId, userId: ws.ownerId },
      { name: 'Brightdesk', url: 'https://www.brightdesk.com/' },
    )
  ).id;
  dir = mkdtempSync(path.join(tmpdir(), 'sightline-logs-'));
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('crawler traffic from the CLI', { timeout: 60_000 }, () => {
  it('streams a gzip log file into the project; again, every request is a duplicate', async () => {
    const file = path.join(dir, 'access.log.gz');
    writeFileSync(file, gzipSync(lines(3000)));
    const res = await sightline(['logs', 'import', '--project', String(siteId), file]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json?.import).toMatchObject({ state: 'done', source: 'cli', lines: 3000, counted: 3000, duplicates: 0 });
    const again = await sightline(['logs', 'import', '--project', String(siteId), '--format', 'combined', file]);
    expect(again.json?.import).toMatchObject({ state: 'done', format: 'combined', counted: 0, duplicates: 3000 });
  });

  it('exits 1 on a truncated gzip file, with the lines before the cut counted', async () => {
    const file = path.join(dir, 'cut.log.gz');
    const whole = gzipSync(lines(30_000).replaceAll('/p/', '/q/'));
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2)));
    const res = await sightline(['logs', 'import', '--project', String(siteId), file]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/truncated/);
    expect(res.json?.import.state).toBe('failed');
    expect(res.json?.import.counted).toBeGreaterThan(1000);
  });

  it('refuses a file that is not there, and a project that is not', async () => {
    expect((await sightline(['logs', 'import', '--project', String(siteId), path.join(dir, 'nope.log')])).code).toBe(2);
    const missing = await sightline([
      'logs',
      'import',
      '--project',
      '999999',
      path.resolve('test/fixtures/logs/plain.ndjson'),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No project with id 999999/);
  });

  it('loads published ranges by the file’s name, or for the agent named', async () => {
    const res = await sightline(['crawlers', 'ranges', 'load', path.resolve('test/fixtures/logs/gptbot.json')]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({
      agent: 'GPTBot',
      prefixes: 2,
      createdAt: '2026-11-01T00:00:00.000000',
      source: 'gptbot.json',
    });
    const renamed = path.join(dir, 'ranges.json');
    writeFileSync(renamed, '{"prefixes": [{"ipv4Prefix": "203.0.113.0/24"}]}');
    const unknown = await sightline(['crawlers', 'ranges', 'load', renamed]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/say it with --agent/);
    const named = await sightline(['crawlers', 'ranges', 'load', renamed, '--agent', 'claudebot']);
    expect(named.json).toMatchObject({ agent: 'ClaudeBot', prefixes: 1 });
    expect(named.json?.ranges.map((r: { agent: string }) => r.agent)).toEqual(['ClaudeBot', 'GPTBot']);
    writeFileSync(renamed, '{"prefixes": [{"ipv4Prefix": "not an address"}]}');
    const bad = await sightline(['crawlers', 'ranges', 'load', renamed, '--agent', 'ClaudeBot']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/entry 1 is not an address prefix/);
  });
});
