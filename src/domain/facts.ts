import type { Transaction } from 'kysely';
import { analyse, type AnswerFacts, type BrandBook } from '../analysis/index.ts';
import type { Db } from '../db/database.ts';
import type { AnswerRow, Database } from '../db/schema.ts';

type Executor = Db | Transaction<Database>;

export type AnswerForAnalysis = Pick<AnswerRow, 'id' | 'siteId' | 'promptId' | 'provider' | 'day' | 'text' | 'citations' | 'error'>;

export function analyseAnswer(answer: AnswerForAnalysis, book: BrandBook): AnswerFacts {
  return analyse({ text: answer.text, citations: answer.citations, failed: answer.error !== null || !answer.text }, book);
}

function factsRow(answer: AnswerForAnalysis, f: AnswerFacts) {
  return {
    answerId: answer.id,
    siteId: answer.siteId,
    promptId: answer.promptId,
    provider: answer.provider,
    day: answer.day,
    verdict: f.verdict,
    mentioned: f.mentioned,
    ownCited: f.ownCited,
    brandRank: f.brandRank,
    brandPosition: f.brandPosition,
    brands: JSON.stringify(f.brands.map(({ name, kind, competitorId, position }) => ({ name, kind, competitorId, position }))),
    competitorsNamed: f.competitorsNamed,
    competitorsCited: f.competitorsCited,
    citations: JSON.stringify(f.citations),
    tone: f.tone,
    toneScore: f.toneScore,
    quote: f.quote,
    suggestions: f.suggestions,
    brandKey: f.bookKey,
  };
}

/** Writes (or rewrites) the facts of many answers in one statement. */
export async function writeFacts(db: Executor, items: { answer: AnswerForAnalysis; facts: AnswerFacts }[]): Promise<void> {
  if (items.length === 0) return;
  await db
    .insertInto('answerFacts')
    .values(items.map((i) => factsRow(i.answer, i.facts)))
    .onConflict((oc) =>
      oc.column('answerId').doUpdateSet((eb) => ({
        verdict: eb.ref('excluded.verdict'),
        mentioned: eb.ref('excluded.mentioned'),
        ownCited: eb.ref('excluded.ownCited'),
        brandRank: eb.ref('excluded.brandRank'),
        brandPosition: eb.ref('excluded.brandPosition'),
        brands: eb.ref('excluded.brands'),
        competitorsNamed: eb.ref('excluded.competitorsNamed'),
        competitorsCited: eb.ref('excluded.competitorsCited'),
        citations: eb.ref('excluded.citations'),
        tone: eb.ref('excluded.tone'),
        toneScore: eb.ref('excluded.toneScore'),
        quote: eb.ref('excluded.quote'),
        suggestions: eb.ref('excluded.suggestions'),
        brandKey: eb.ref('excluded.brandKey'),
      })),
    )
    .execute();
}
