import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../scripts/openapi.ts';
import { startTestApp } from '../helpers/app.ts';
import { addAcmeSite, seedOrg } from '../helpers/fixtures.ts';
import { addActivePrompts, waitForScan } from '../helpers/scans.ts';

/**
 * The check a customer's developer would make: the OpenAPI document (built
 * from the route table as GET /openapi.json builds it) passes `redocly lint`
 * with the recommended rules (redocly.yaml), and a client generated from it
 * with openapi-typescript compiles against examples/client.ts, which reads
 * typed fields of whoami, projects, prompts, the report and a scan; then the
 * example runs against a real server. The generated types go to
 * examples/generated/ (git-ignored). Nothing is fetched from the network.
 * `scripts/openapi-check.sh` runs the first two steps.
 */

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const bin = (name: string) => realpathSync(join(root, 'node_modules/.bin', name));
// The tools run on this Node (the pinned one), not whatever `node` is on PATH; no update checks or telemetry.
const node = (script: string, args: string[]) =>
  run(process.execPath, [script, ...args], {
    cwd: root,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });

const dir = mkdtempSync(join(tmpdir(), 'sightline-openapi-'));
const documentPath = join(dir, 'openapi.json');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The public probes cannot be refused, so they have no 4xx response: the one recommended warning accepted. */
const PROBES = ['/healthz', '/readyz', '/metrics', '/openapi.json'].map(
  (p) => `#/paths/${p.replaceAll('/', '~1')}/get/responses`,
);

describe('the OpenAPI document as a client generator reads it', () => {
  writeFileSync(documentPath, JSON.stringify(openApiDocument('AB'), null, 2));

  it('passes redocly lint with the recommended rules', { timeout: 120_000 }, async () => {
    const { stdout } = await node(bin('redocly'), [
      'lint',
      documentPath,
      '--config',
      join(root, 'redocly.yaml'),
      '--format=json',
    ]).catch((err: { stdout?: string }) => ({
      stdout: err.stdout ?? '',
    }));
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(report.totals.errors, problems.join('\n')).toBe(0);
    const unexpected = report.problems.filter(
      (p) => !(p.ruleId === 'operation-4xx-response' && PROBES.includes(p.location[0]?.pointer ?? '')),
    );
    expect(
      unexpected.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`),
      'new lint warnings',
    ).toEqual([]);
  });

  it('generates a client that examples/client.ts compiles against', { timeout: 120_000 }, async () => {
    mkdirSync(join(root, 'examples/generated'), { recursive: true });
    await node(bin('openapi-typescript'), [documentPath, '-o', join(root, 'examples/generated/api.d.ts')]);
    const compiled = await node(join(root, 'node_modules/typescript/bin/tsc'), [
      '-p',
      join(root, 'examples/tsconfig.json'),
    ]).then(
      () => '',
      (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
    );
    expect(compiled, 'examples/client.ts against the generated types').toBe('');
  });

  it('runs examples/client.ts against a server with a scanned project', { timeout: 120_000 }, async () => {
    const app = await startTestApp({ simulator: true, workers: { queues: ['scan'] } });
    try {
      const ws = await seedOrg(app.ctx, { balanceUsd: 5 });
      const site = await addAcmeSite(app, ws);
      await addActivePrompts(app.ctx, site.id, ['Which CRM suits a startup?', 'Best help desk for a small team?']);
      const started = await app.request('POST', `/projects/${site.id}/scans`, {
        key: ws.keys.admin,
        body: { providers: ['openai', 'perplexity'] },
      });
      expect(started.status, started.text).toBe(200);
      await waitForScan(app, ws.keys.admin, site.id, started.body.scan.id);
      const { stdout } = await run(process.execPath, [join(root, 'examples/client.ts')], {
        cwd: root,
        env: { ...process.env, SIGHTLINE_URL: app.url, SIGHTLINE_KEY: ws.keys.viewer },
      });
      expect(stdout).toMatch(/access\n/);
      expect(stdout).toMatch(/Project Acme \(acme\.com\)/);
      expect(stdout).toMatch(/2 prompts; latest scanned:/);
      expect(stdout).toMatch(/visibility [\d.]+% \([\d.]+ to [\d.]+\)/);
      expect(stdout).toMatch(/Last scan #\d+: done, 4\/4 answers/);
    } finally {
      await app.close();
    }
  });
});
