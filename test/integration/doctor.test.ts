import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { JOBS } from '../../jobs/index.ts';
import { createConnection, createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkClock, skewVerdict, type DoctorReport } from '../../src/domain/system/doctor.ts';
import { startWorkers } from '../../src/queue/worker.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * `sightline doctor`, run as operators run it (a process of its own)
 * against this file's database and Redis prefix: every check ok with
 * workers on every queue; a missing worker, a Redis that may evict keys, a
 * pending migration, an unreachable Redis and a skewed clock each fail
 * their check, with a clear verdict, and the command exits 1.
 */

const run = promisify(execFile);
const NODE = path.resolve('node_modules/.bin/node');
const CLI = path.resolve('src/cli/main.ts');
let app: TestApp;

async function doctor(
  env: Record<string, string> = {},
): Promise<{ code: number; report: DoctorReport; stderr: string; ms: number }> {
  const started = Date.now();
  try {
    const { stdout, stderr } = await run(NODE, [CLI, 'doctor'], { env: { ...process.env, ...app.env, ...env } });
    return { code: 0, report: JSON.parse(stdout) as DoctorReport, stderr, ms: Date.now() - started };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, report: JSON.parse(e.stdout) as DoctorReport, stderr: e.stderr, ms: Date.now() - started };
  }
}

const verdicts = (report: DoctorReport) => Object.fromEntries(report.checks.map((c) => [c.check, c.verdict]));
const detail = (report: DoctorReport, check: string) => report.checks.find((c) => c.check === check)?.detail ?? '';

/** A port nothing listens on. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Whether something accepts connections on 127.0.0.1:port. */
function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

beforeAll(async () => {
  app = await startTestApp({ simulator: true });
  // The API's connection answers nothing before it is ready (no offline queue).
  for (let i = 0; i < 100 && app.ctx.redis.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 50));
});
afterAll(() => app?.close());

describe('sightline doctor', { timeout: 120_000 }, () => {
  it('passes every check with a worker on every queue, and says what it found', async () => {
    const workers = startWorkers(app.ctx, JOBS);
    try {
      const { code, report, stderr } = await doctor();
      expect(verdicts(report)).toEqual({
        config: 'ok',
        postgres: 'ok',
        redis: 'ok',
        migrations: 'ok',
        workers: 'ok',
        clock: 'ok',
        assistants: 'ok',
      });
      expect(code).toBe(0);
      expect(report.ok).toBe(true);
      expect(detail(report, 'postgres')).toMatch(/^PostgreSQL \d+/);
      expect(detail(report, 'redis')).toMatch(/^Redis \d+\.\d+.*maxmemory-policy noeviction/);
      expect(detail(report, 'workers')).toMatch(/scan [1-9]/);
      expect(detail(report, 'assistants')).toContain(
        'simulated: openai, anthropic, perplexity, gemini, serp, appGateway',
      );
      expect(stderr).toMatch(/^ {2}ok {4}redis/m);
    } finally {
      await workers.close();
    }
  });

  it('fails on a queue with no live worker, naming it', async () => {
    const workers = startWorkers(app.ctx, JOBS, { queues: ['scan', 'schedule'] });
    try {
      const { code, report, stderr } = await doctor();
      expect(code).toBe(1);
      expect(report.ok).toBe(false);
      expect(verdicts(report).workers).toBe('fail');
      expect(detail(report, 'workers')).toMatch(/^no live worker for reanalysis, rewrite, site-fetch/);
      expect(stderr).toMatch(/FAIL {2}workers/);
      expect(stderr).toContain('sightline doctor: 1 check(s) failed: workers');
    } finally {
      await workers.close();
    }
  });

  it('fails on a Redis that may evict keys (maxmemory-policy other than noeviction)', async () => {
    const port = await freePort();
    const redis: ChildProcess = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory-policy',
        'allkeys-lru',
      ],
      {
        stdio: 'ignore',
      },
    );
    try {
      for (let i = 0; i < 50 && !(await canConnect(port)); i++) await new Promise((r) => setTimeout(r, 100));
      const { code, report } = await doctor({ REDIS_URL: `redis://127.0.0.1:${port}` });
      expect(code).toBe(1);
      expect(verdicts(report).redis).toBe('fail');
      expect(detail(report, 'redis')).toContain('maxmemory-policy must be noeviction');
      expect(detail(report, 'redis')).toContain('maxmemory-policy allkeys-lru');
    } finally {
      redis.kill('SIGTERM');
    }
  });

  it('fails, without hanging, on a Redis that does not answer', async () => {
    const { code, report, ms } = await doctor({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    expect(code).toBe(1);
    expect(verdicts(report)).toMatchObject({ redis: 'fail', workers: 'fail', clock: 'fail', postgres: 'ok' });
    // Each check has a 5 s deadline; the process starting up is the rest.
    expect(ms).toBeLessThan(20_000);
  });

  it('fails on a pending migration, naming it', async () => {
    const last = await sql<{
      name: string;
      timestamp: string;
    }>`SELECT name, timestamp FROM kysely_migration ORDER BY name DESC LIMIT 1`.execute(app.ctx.db);
    const row = last.rows[0] as { name: string; timestamp: string };
    await sql`DELETE FROM kysely_migration WHERE name = ${row.name}`.execute(app.ctx.db);
    try {
      const { code, report } = await doctor();
      expect(code).toBe(1);
      expect(verdicts(report).migrations).toBe('fail');
      expect(detail(report, 'migrations')).toBe(`1 pending: ${row.name} (run sightline migrate)`);
    } finally {
      await sql`INSERT INTO kysely_migration (name, timestamp) VALUES (${row.name}, ${row.timestamp})`.execute(
        app.ctx.db,
      );
    }
  });

  it("judges this machine's clock against Redis'", async () => {
    expect([skewVerdict(0), skewVerdict(-400), skewVerdict(900), skewVerdict(-2500)]).toEqual([
      'ok',
      'ok',
      'warn',
      'fail',
    ]);
    const ahead = await checkClock(app.ctx, () => Date.now() + 3_000);
    expect(ahead.verdict).toBe('fail');
    expect(ahead.detail).toMatch(/^this machine's clock is (29\d\d|30\d\d) ms ahead of Redis'/);
    expect((await checkClock(app.ctx)).verdict).toBe('ok');
  });
});
