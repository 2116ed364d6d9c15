import type { AppContext } from '../../context.ts';
import type { SiteRow } from '../../db/schema.ts';
import { BadRequestError, RateLimitedError } from '../../errors.ts';
import { connectedProviders } from '../providers/index.ts';
import { limitsOf, consumeRateLimit } from '../orgs/index.ts';
import { rewritesLeftToday, secondsUntilNextUtcDay, takeRewrites } from './rewrite-allowance.ts';

/** The instruction sent to the assistant; the simulator recognises it and answers with a question. */
export function rewriteInstruction(query: string): string {
  return `Rewrite this search query as the question a buyer would ask an AI assistant. Reply with the question only, in the query's language.\nQuery: ${query}`;
}

/** The workspace's daily rewrite allowance (plans.ts `rewritesPerDay`). */
async function rewritesPerDay(ctx: AppContext, orgId: number): Promise<number> {
  const org = await ctx.db
    .selectFrom('orgs')
    .select(['plan', 'limitSites', 'limitPromptsPerSite', 'limitScansPerMonth', 'limitMembers'])
    .where('id', '=', orgId)
    .executeTakeFirstOrThrow();
  return limitsOf(org).rewritesPerDay;
}

/** How many of the site's prompts are still imported search queries (`raw`), and how many rewrites the workspace has left today. */
export async function pendingRewrites(
  ctx: AppContext,
  site: SiteRow,
): Promise<{ pending: number; rewritesLeftToday: number }> {
  const [row, perDay] = await Promise.all([
    ctx.db
      .selectFrom('prompts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .where('raw', '=', true)
      .executeTakeFirstOrThrow(),
    rewritesPerDay(ctx, site.orgId),
  ]);
  return { pending: Number(row.n), rewritesLeftToday: await rewritesLeftToday(ctx, site.orgId, perDay) };
}

/**
 * Queues the rewrite of a site's raw imported queries into questions. Not
 * charged, but it does call an assistant, so it needs ChatGPT connected, an
 * available balance (what scans hold reserved does not count), is limited to
 * 10 calls an hour per site (every call counts, one that joins a queued or
 * running rewrite too: CONTRACT.md "Own rate limits") and to the workspace's
 * rewrites per day (429 when none are left; the job itself takes one per
 * prompt it asks). One rewrite per site at a time: a call while one is
 * queued or running answers that one.
 */
export async function requestRewrite(ctx: AppContext, site: SiteRow) {
  if (!connectedProviders(ctx.config).includes('openai'))
    throw new BadRequestError('Rewriting queries asks ChatGPT (openai), which is not connected on this deployment');
  const org = await ctx.db
    .selectFrom('orgs')
    .select(['balanceMicros', 'reservedMicros'])
    .where('id', '=', site.orgId)
    .executeTakeFirstOrThrow();
  if (org.balanceMicros - org.reservedMicros <= 0)
    throw new BadRequestError('Rewriting queries needs an available balance above zero; top up the workspace first');
  await consumeRateLimit(ctx, 'rewrite', site.id);
  const { pending, rewritesLeftToday: left } = await pendingRewrites(ctx, site);
  const jobId = `rewrite-${site.id}`;
  const state = await ctx.jobs.state('rewrite', jobId);
  if (state === 'live') return { rewrite: { state: 'queued', pending, jobId, rewritesLeftToday: left } };
  if (pending === 0) return { rewrite: { state: 'nothing to do', pending, jobId: null, rewritesLeftToday: left } };
  if (left === 0) {
    const perDay = await rewritesPerDay(ctx, site.orgId);
    throw new RateLimitedError(
      `This workspace has used its ${perDay} query rewrites for today (UTC); the ${pending} raw prompts stay as imported until the allowance starts over`,
      secondsUntilNextUtcDay(ctx.clock.now()),
    );
  }
  if (state !== 'missing') await ctx.jobs.remove('rewrite', jobId);
  await ctx.jobs.enqueue('rewrite', { siteId: site.id }, { jobId });
  return { rewrite: { state: 'queued', pending, jobId, rewritesLeftToday: left } };
}

const BATCH = 50;

/** Cleans an assistant's reply into a prompt text, or null when it is not usable as one. */
export function questionFrom(reply: string): string | null {
  const line = reply
    .split('\n')
    .map((l) => l.trim().replace(/^["'“”*\s]+|["'“”*\s]+$/g, ''))
    .find((l) => l.length > 0);
  if (!line || line.length < 3 || line.length > 500) return null;
  return /[?？]$/.test(line) ? line : `${line}?`;
}

export interface RewriteResult {
  rewritten: number;
  /** Asked, but the reply was unusable, a duplicate, or the call failed: still raw. */
  kept: number;
  /** Not asked because the workspace's rewrites for today ran out: still raw. */
  leftForCap: number;
}

/**
 * The rewrite job: each raw prompt is asked once; a reply that would
 * duplicate another prompt leaves it raw. Before each batch it takes one
 * rewrite per prompt from the workspace's allowance for the day; prompts
 * past what it was granted are not asked and stay raw (`leftForCap`).
 */
export async function runRewrite(ctx: AppContext, siteId: number): Promise<RewriteResult> {
  const site = await ctx.db
    .selectFrom('sites')
    .select(['orgId', 'language', 'location'])
    .where('id', '=', siteId)
    .executeTakeFirst();
  if (!site) return { rewritten: 0, kept: 0, leftForCap: 0 };
  const perDay = await rewritesPerDay(ctx, site.orgId);
  const assistants = await ctx.assistants();
  let rewritten = 0;
  let kept = 0;
  let leftForCap = 0;
  let lastId = 0;
  for (;;) {
    const batch = await ctx.db
      .selectFrom('prompts')
      .select(['id', 'text'])
      .where('siteId', '=', siteId)
      .where('raw', '=', true)
      .where('id', '>', lastId)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (batch.length === 0) break;
    lastId = batch[batch.length - 1]?.id ?? lastId;
    const granted = await takeRewrites(ctx, site.orgId, perDay, batch.length);
    await Promise.all(
      batch.slice(0, granted).map(async (p) => {
        try {
          const answer = await assistants.ask(
            {
              provider: 'openai',
              prompt: rewriteInstruction(p.text),
              language: site.language,
              location: site.location,
            },
            {},
          );
          const question = questionFrom(answer.text);
          if (!question) {
            kept++;
            return;
          }
          const res = await ctx.db
            .updateTable('prompts')
            .set({ text: question, raw: false, updatedAt: ctx.clock.now() })
            .where('id', '=', p.id)
            .where('raw', '=', true)
            .executeTakeFirst()
            .catch((err: { code?: string }) => {
              if (err.code === '23505') return null; // the question is already a prompt of this site
              throw err;
            });
          if (res && Number(res.numUpdatedRows) > 0) rewritten++;
          else kept++;
        } catch (err) {
          ctx.logger.warn({ promptId: p.id, err: (err as Error).message }, 'rewrite of one prompt failed');
          kept++;
        }
      }),
    );
    const firstUnasked = batch[granted];
    if (firstUnasked) {
      const rest = await ctx.db
        .selectFrom('prompts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('siteId', '=', siteId)
        .where('raw', '=', true)
        .where('id', '>=', firstUnasked.id)
        .executeTakeFirstOrThrow();
      leftForCap = Number(rest.n);
      ctx.logger.info(
        { siteId, orgId: site.orgId, perDay, leftForCap },
        'rewrite stopped: the workspace has no rewrites left today',
      );
      break;
    }
  }
  return { rewritten, kept, leftForCap };
}
