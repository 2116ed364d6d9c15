import type { AppContext } from '../../context.ts';
import type { SiteRow } from '../../db/schema.ts';
import { BadRequestError } from '../../errors.ts';
import { jobState, removeJob } from '../../queue/job-state.ts';
import { enqueue } from '../../queue/queues.ts';
import { connectedAssistants } from '../providers/providers.ts';
import { assistantsFor } from '../providers/assistants.ts';
import { consumeRateLimit } from '../workspace/rate-limits.ts';

/** The instruction sent to the assistant; the simulator recognises it and answers with a question. */
export function rewriteInstruction(query: string): string {
  return `Rewrite this search query as the question a buyer would ask an AI assistant. Reply with the question only, in the query's language.\nQuery: ${query}`;
}

/** How many of the site's prompts are still imported search queries (`raw`). */
export async function pendingRewrites(ctx: AppContext, site: SiteRow): Promise<{ pending: number }> {
  const row = await ctx.db
    .selectFrom('prompts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('siteId', '=', site.id)
    .where('raw', '=', true)
    .executeTakeFirstOrThrow();
  return { pending: Number(row.n) };
}

/**
 * Queues the rewrite of a site's raw imported queries into questions. Not
 * charged, but it does call an assistant, so it needs ChatGPT connected, an
 * available balance (what scans hold reserved does not count) and is limited
 * to 10 calls an hour per site. One rewrite per site at a time: a call while
 * one is queued or running answers that one.
 */
export async function requestRewrite(ctx: AppContext, site: SiteRow) {
  if (!connectedAssistants(ctx.config).includes('openai')) throw new BadRequestError('Rewriting queries asks ChatGPT (openai), which is not connected on this deployment');
  const org = await ctx.db.selectFrom('orgs').select(['balanceMicros', 'reservedMicros']).where('id', '=', site.orgId).executeTakeFirstOrThrow();
  if (org.balanceMicros - org.reservedMicros <= 0) throw new BadRequestError('Rewriting queries needs an available balance above zero; top up the workspace first');
  const { pending } = await pendingRewrites(ctx, site);
  const jobId = `rewrite-${site.id}`;
  const state = await jobState(ctx, 'rewrite', jobId);
  if (state === 'live') return { rewrite: { state: 'queued', pending, jobId } };
  await consumeRateLimit(ctx, 'rewrite', site.id);
  if (pending === 0) return { rewrite: { state: 'nothing to do', pending, jobId: null } };
  if (state !== 'missing') await removeJob(ctx, 'rewrite', jobId);
  await enqueue(ctx, 'rewrite', { siteId: site.id }, { jobId });
  return { rewrite: { state: 'queued', pending, jobId } };
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

/** The rewrite job: each raw prompt is asked once; a reply that would duplicate another prompt leaves it raw. */
export async function runRewrite(ctx: AppContext, siteId: number): Promise<{ rewritten: number; kept: number }> {
  const site = await ctx.db.selectFrom('sites').select(['language', 'location']).where('id', '=', siteId).executeTakeFirst();
  if (!site) return { rewritten: 0, kept: 0 };
  const assistants = assistantsFor(ctx);
  let rewritten = 0;
  let kept = 0;
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
    await Promise.all(
      batch.map(async (p) => {
        try {
          const answer = await assistants.ask({ provider: 'openai', prompt: rewriteInstruction(p.text), language: site.language, location: site.location }, {});
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
  }
  return { rewritten, kept };
}
