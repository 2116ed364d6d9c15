import type { AppContext } from '../../context.ts';
import { microsToUsd } from '../../money.ts';

/** Columns every answer view reads: the answer as stored plus what analysis derived. */
export function answersWithFacts(ctx: AppContext) {
  return ctx.db
    .selectFrom('answers as a')
    .innerJoin('prompts as p', 'p.id', 'a.promptId')
    .leftJoin('answerFacts as f', (j) => j.onRef('f.answerId', '=', 'a.id').onRef('f.month', '=', 'a.month'))
    .select([
      'a.id',
      'a.scanId',
      'a.promptId',
      'p.text as promptText',
      'a.provider',
      'a.sample',
      'a.model',
      'a.askedAt',
      'a.text',
      'a.citations as rawCitations',
      'a.searches',
      'a.simulated',
      'a.context',
      'a.error',
      'a.costMicros',
      'a.truncated',
      'f.verdict',
      'f.mentioned',
      'f.ownCited',
      'f.brandRank',
      'f.brands',
      'f.citations',
      'f.tone',
      'f.toneScore',
      'f.quote',
      'f.readChars',
      'f.readTruncated',
      'f.readTimedOut',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof answersWithFacts>['execute']>>[number];

/** One answer word for word with what analysis found (CONTRACT.md "Field names": Answer). */
export function serializeAnswer(r: Row) {
  return {
    id: r.id,
    scanId: r.scanId,
    promptId: r.promptId,
    prompt: r.promptText,
    provider: r.provider,
    sample: r.sample,
    model: r.model,
    askedAt: r.askedAt,
    text: r.text,
    verdict: r.verdict ?? 'failed',
    mentioned: r.mentioned ?? false,
    ownCited: r.ownCited ?? false,
    brandRank: r.brandRank,
    brands: (r.brands ?? []).map((b) => ({ name: b.name, kind: b.kind, position: b.position })),
    citations: (
      r.citations ??
      r.rawCitations.map((c) => ({ url: c.url, title: c.title, domain: c.domain ?? '', siteType: 'other' }))
    ).map((c) => ({
      url: c.url,
      title: c.title,
      domain: c.domain,
      siteType: c.siteType,
    })),
    searches: r.searches,
    context: r.context,
    simulated: r.simulated,
    tone: r.tone,
    toneScore: r.toneScore,
    quote: r.quote,
    error: r.error,
    truncated: r.truncated,
    analysis: {
      // Facts written before analysis was capped read the whole text of an answer that did not fail.
      readChars: r.readChars ?? (r.verdict === null || r.verdict === 'failed' ? 0 : (r.text?.length ?? 0)),
      truncated: r.readTruncated ?? false,
      timedOut: r.readTimedOut ?? false,
    },
    costUsd: microsToUsd(r.costMicros),
  };
}
