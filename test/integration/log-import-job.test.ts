import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import { createSite } from '../../src/domain/onboarding/new-site.ts';
import { createLogImport, findLogImport } from '../../src/domain/traffic/log-imports.ts';
import { crawlerTrafficReport } from '../../src/domain/traffic/report.ts';
import { runLogImport } from '../../src/domain/traffic/run-import.ts';
import { finished } from '../helpers/jobs.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * The log-import job's own promises: a run that stops half way (its source
 * fails) is resumed after the lines it committed and ends with the counts
 * and the report of one clean run; and a long import hands the event loop
 * back as it reads, so the other jobs of its worker go on.
 */

const clock = fixedClock('2026-11-26T12:00:00Z');
let app: TestApp;
let ws: Org;

const AGENTS = ['GPTBot/1.2', 'ClaudeBot/1.0', 'PerplexityBot/1.0', 'OAI-SearchBot/1.0'];
/** 90,000 lines over three days: most AI agents' hits (several batches), a few people. */
const LOG = Buffer.from(
  Array.from({ length: 90_000 }, (_, i) => {
    const day = 20 + Math.floor(i / 30_000);
    const t = `${day}/Nov/2026:${String(Math.floor(i / 3600) % 24).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} +0000`;
    const ua =
      i % 10 === 9
        ? 'Mozilla/5.0 (Macintosh) Safari/605.1.15'
        : `Mozilla/5.0 (compatible; ${AGENTS[i % AGENTS.length]})`;
    return `198.51.100.${i % 200} - - [${t}] "GET /p/${i % 700} HTTP/1.1" ${i % 50 === 0 ? 404 : 200} 10 "${i % 10 === 9 ? 'https://chatgpt.com/' : '-'}" "${ua}"\n`;
  }).join(''),
);

async function* chunks(bytes: Buffer, options: { failAfter?: number; size?: number } = {}) {
  const size = options.size ?? 64 * 1024;
  for (let i = 0; i < bytes.length; i += size) {
    if (options.failAfter !== undefined && i >= options.failAfter) throw new Error('the disk went away');
    yield bytes.subarray(i, i + size);
  }
}

async function newSite(name: string) {
  return (
    await createSite(
      app.ctx,
      { orgId: ws.orgId, userId: ws.ownerId },
      { name, url: `https://${name.toLowerCase()}.com/` },
    )
  ).id;
}

const counts = (r: Awaited<ReturnType<typeof findLogImport>>) => ({
  lines: r.lines,
  counted: r.counted,
  duplicates: r.duplicates,
  skipped: r.skipped,
  other: r.other,
  agentHits: r.agentHits,
  referrals: r.referrals,
});

beforeAll(async () => {
  app = await startTestApp({ clock });
  ws = await seedOrg(app.ctx);
});
afterAll(() => app.close());

describe('the log-import job', { timeout: 120_000 }, () => {
  // Read in this thread throughout, or handed to a reader thread after its first 2 MB (before the stop) or 10 MB (after).
  it.each([
    ['read in this thread', undefined, 'Resumed'],
    ['read on a thread from 2 MB', 2 * 2 ** 20, 'Threaded'],
    ['read on a thread from 10 MB', 10 * 2 ** 20, 'Handover'],
  ] as const)(
    'resumes a run that stopped half way after the lines it committed, %s: the same counts and report as one clean run',
    async (_, threadAfterBytes, name) => {
      const clean = await newSite(`Clean${name}`);
      const cleanRow = await createLogImport(app.ctx, clean, null, { source: 'cli', format: 'auto' });
      expect(await runLogImport(app.ctx, clean, cleanRow.id, { source: chunks(LOG) })).toEqual({ state: 'done' });

      const resumed = await newSite(name);
      const row = await createLogImport(app.ctx, resumed, null, { source: 'cli', format: 'auto' });
      await expect(
        runLogImport(app.ctx, resumed, row.id, {
          source: chunks(LOG, { failAfter: Math.floor(LOG.length * 0.7) }),
          threadAfterBytes,
        }),
      ).rejects.toThrow('the disk went away');
      const stopped = await findLogImport(app.ctx, resumed, row.id);
      expect(stopped.status).toBe('running');
      expect(stopped.resumeLine).toBeGreaterThan(20_000);
      expect(stopped.counted).toBeGreaterThan(0);
      expect(await runLogImport(app.ctx, resumed, row.id, { source: chunks(LOG), threadAfterBytes })).toEqual({
        state: 'done',
      });

      const [a, b] = [await findLogImport(app.ctx, clean, cleanRow.id), await findLogImport(app.ctx, resumed, row.id)];
      expect(counts(b)).toEqual(counts(a));
      expect(counts(a)).toMatchObject({
        lines: 90_000,
        counted: 90_000,
        duplicates: 0,
        agentHits: 81_000,
        referrals: 9000,
      });
      for (const period of ['day', 'week', 'month', 'quarter'] as const) {
        const start = { day: '2026-11-21', week: '2026-11-16', month: '2026-11-01', quarter: '2026-10-01' }[period];
        const [x, y] = await Promise.all([
          crawlerTrafficReport(app.ctx, { id: clean } as never, { period, start }),
          crawlerTrafficReport(app.ctx, { id: resumed } as never, { period, start }),
        ]);
        // The same but for the site's name in page URLs.
        const same = (v: unknown) =>
          JSON.parse(
            JSON.stringify(v).replaceAll(
              `https://clean${name.toLowerCase()}.com/`,
              `https://${name.toLowerCase()}.com/`,
            ),
          ) as unknown;
        expect(y.agents, period).toEqual(same(x.agents));
        expect(y.totals, period).toEqual(x.totals);
        expect(y.referrals, period).toEqual(same(x.referrals));
        expect(y.statusPages, period).toEqual(same(x.statusPages));
        expect(y.crawledNotCitedTotal, period).toBe(x.crawledNotCitedTotal);
      }
    },
  );

  it('hands the event loop back while it reads: no pause of the loop is more than a fraction of the import', async () => {
    const site = await newSite('Busy');
    const people = Buffer.from(
      Array.from(
        { length: 40_000 },
        (_, i) =>
          `192.0.2.${i % 250} - - [22/Nov/2026:10:00:00 +0000] "GET /page/${i} HTTP/1.1" 200 512 "-" "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0"\n`,
      ).join(''),
    );
    // One large piece at a time, as a posted body or a fast disk hands them over.
    async function* repeated() {
      for (let i = 0; i < 20; i++) yield people;
    }
    const row = await createLogImport(app.ctx, site, null, { source: 'cli', format: 'combined' });
    let last = performance.now();
    let longest = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    const result = finished(await runLogImport(app.ctx, site, row.id, { source: repeated() }));
    const took = performance.now() - started;
    clearInterval(tick);
    expect(result.state).toBe('done');
    expect((await findLogImport(app.ctx, site, row.id)).lines).toBe(800_000);
    expect(longest).toBeLessThan(Math.min(2000, took / 4));
  });
});

describe('deleting a site', () => {
  it('removes its traffic with it, the hashes of its requests included', async () => {
    const { deleteSite } = await import('../../src/domain/sites/delete.ts');
    const site = await newSite('Doomed');
    const row = await createLogImport(app.ctx, site, null, { source: 'cli', format: 'auto' });
    await runLogImport(app.ctx, site, row.id, { source: chunks(LOG.subarray(0, 200_000)) });
    const count = async (
      table: 'trafficSeen' | 'trafficSalts' | 'trafficPagePeriod' | 'trafficPaths' | 'crawlerLogImports',
    ) =>
      Number(
        (
          await app.ctx.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('siteId', '=', site)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('trafficSeen')).toBeGreaterThan(0);
    await deleteSite(app.ctx, site);
    for (const table of [
      'trafficSeen',
      'trafficSalts',
      'trafficPagePeriod',
      'trafficPaths',
      'crawlerLogImports',
    ] as const)
      expect(await count(table), table).toBe(0);
  });
});
