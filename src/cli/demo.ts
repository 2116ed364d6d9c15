import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { usdToMicros } from '../money.ts';
import { createApiKey, authenticateKey, addMember, createOrg, createUser } from '../domain/orgs/index.ts';
import { createSiteEvent, siteEventCreateSchema, findSite } from '../domain/sites/index.ts';
import { createSite } from '../domain/onboarding/index.ts';
import { createPrompt, promptCreateSchema } from '../domain/prompts/index.ts';
import { requestCrawlerCheck } from '../domain/crawlers/index.ts';
import { requestSitemapImport } from '../domain/pages/index.ts';
import { createLogImport } from '../domain/traffic/index.ts';
import { DEMO_LOG_URL } from '../fixture-site/demo-site.ts';

export const DEMO_EMAIL = 'demo@sightline.local';

const DEMO_PROMPTS = [
  'What is the best helpdesk software for a small SaaS startup?',
  'Which customer support tools have the best AI chatbot?',
  'What are good Zendesk alternatives for small teams?',
  'Is Brightdesk a good choice for a growing support team?',
  'Freshdesk vs Help Scout: which is better for ecommerce support?',
  'Which help desk integrates best with Slack?',
  'What are the top live chat tools for B2B companies?',
  'Which support platform has the best reporting and analytics?',
];

/**
 * The demo site's pages, crawler check and server log, queued when it
 * has none: a demo seeded before they existed gets them too (a new one got
 * the first two when its site was made). The log is the demo site's own
 * (`/logs/access.log.gz`), pulled as a log drain would be, so the first
 * crawler traffic report has AI crawlers and assistants' visitors in it.
 */
export async function ensureDemoSiteReads(ctx: AppContext, seed: DemoSeed): Promise<void> {
  const [imported, checked, logged] = await Promise.all([
    ctx.db.selectFrom('sitemapImports').select('id').where('siteId', '=', seed.siteId).executeTakeFirst(),
    ctx.db.selectFrom('crawlerChecks').select('id').where('siteId', '=', seed.siteId).executeTakeFirst(),
    ctx.db.selectFrom('crawlerLogImports').select('id').where('siteId', '=', seed.siteId).executeTakeFirst(),
  ]);
  const site = { id: seed.siteId };
  if (!imported) await requestSitemapImport(ctx, site, seed.userId, 'create');
  if (!checked) await requestCrawlerCheck(ctx, site, seed.userId, 'create');
  if (!logged)
    await createLogImport(ctx, seed.siteId, seed.userId, { source: 'pull', format: 'combined', pullUrl: DEMO_LOG_URL });
}

/** The demo's first scan, against the simulator, so a newcomer's first report has numbers in it. Only when the site has none. */
export async function startDemoScan(ctx: AppContext, seed: DemoSeed): Promise<number | null> {
  const any = await ctx.db.selectFrom('scans').select('id').where('siteId', '=', seed.siteId).executeTakeFirst();
  if (any) return null;
  const site = await findSite(ctx.db, seed.orgId, seed.siteId);
  const { startScan } = await import('../domain/scans/index.ts');
  const started = await startScan(ctx, site, seed.userId, { label: 'Demo scan' });
  return started.scan.id;
}

export interface DemoSeed {
  orgId: number;
  userId: number;
  siteId: number;
  key: string;
  created: boolean;
}

/**
 * Seeds the demo workspace on first run and keeps its key in a local,
 * git-ignored file so every `npm start` can print a key that works. If the
 * saved key was revoked or lost, a new one is made (only hashes are stored).
 */
export async function seedDemo(ctx: AppContext, stateDir: string): Promise<DemoSeed> {
  const file = path.join(stateDir, 'demo.json');
  const { db } = ctx;
  const existing = await db
    .selectFrom('users as u')
    .innerJoin('memberships as m', 'm.userId', 'u.id')
    .select(['u.id as userId', 'm.orgId'])
    .where('u.email', '=', DEMO_EMAIL)
    .where('m.role', '=', 'owner')
    .executeTakeFirst();

  let seed: Omit<DemoSeed, 'key'> & { key?: string };
  if (existing) {
    const site = await db
      .selectFrom('sites')
      .select('id')
      .where('orgId', '=', existing.orgId)
      .orderBy('id')
      .executeTakeFirst();
    seed = { orgId: existing.orgId, userId: existing.userId, siteId: site?.id ?? 0, created: false };
    const saved = await fs.readFile(file, 'utf8').then(
      (t) => JSON.parse(t) as { key?: string },
      () => ({ key: undefined }),
    );
    if (saved.key) {
      const stillWorks = await authenticateKey(ctx, saved.key, ctx.clock.now()).then(
        (p) => p.org.id === existing.orgId,
        () => false,
      );
      if (stillWorks) seed.key = saved.key;
    }
  } else {
    const org = await createOrg(ctx, { name: 'Demo workspace', plan: 'pro', balanceMicros: usdToMicros(100) });
    const user = await createUser(ctx, { email: DEMO_EMAIL, name: 'Demo Owner' });
    await addMember(ctx, { orgId: org.id, userId: user.id, role: 'owner' });
    const site = await createSite(
      ctx,
      { orgId: org.id, userId: user.id },
      {
        name: 'Brightdesk',
        url: 'https://www.brightdesk.com/',
        industry: 'Customer support software',
        brandTerms: ['Brightdesk Helpdesk', 'BrightDesk AI'],
        competitors: [
          { name: 'Zendesk', domain: 'zendesk.com' },
          { name: 'Freshdesk', domain: 'freshdesk.com' },
          { name: 'Help Scout', domain: 'helpscout.com' },
          { name: 'Intercom', domain: 'intercom.com' },
        ],
      },
    );
    const siteRow = await findSite(db, org.id, site.id);
    for (const text of DEMO_PROMPTS) await createPrompt(ctx, siteRow, user.id, promptCreateSchema.parse({ text }));
    // One event for the trend charts (variant B), dated the day of the first scan.
    await createSiteEvent(
      ctx,
      siteRow,
      siteEventCreateSchema.parse({
        title: 'Help center relaunch',
        date: ctx.clock.now().toISOString().slice(0, 10),
        type: 'site',
        note: 'New AI answers page',
      }),
    );
    seed = { orgId: org.id, userId: user.id, siteId: site.id, created: true };
  }
  if (!seed.key) {
    seed.key = (
      await createApiKey(ctx, { orgId: seed.orgId, userId: seed.userId, name: 'Demo key', role: 'admin' })
    ).key;
    await fs.mkdir(stateDir, { recursive: true });
    await fs.writeFile(file, `${JSON.stringify({ orgId: seed.orgId, key: seed.key }, null, 2)}\n`, { mode: 0o600 });
  }
  return seed as DemoSeed;
}
