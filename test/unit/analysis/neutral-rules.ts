/**
 * Rules for an earned neutral band that were tried and not adopted
 * (docs/analysis.md, Evaluation): each runs after the scorer's own rules
 * (evaluative.ts) and can only take valence away, so it moves snippets
 * toward neutral. Written from the principle before measuring, with no
 * parameter fitted: each was measured once on the public sets' even ids,
 * and the odd ids are printed beside as held out. Printed by
 * sentiment-evaluation.ts; no test holds them.
 */
import { keepEvaluative } from '../../../src/analysis/evaluative.ts';
import { plainForScoring, SCORER_OPTIONS } from '../../../src/analysis/sentiment.ts';
import { createVader, END_BANG, END_QUESTION, END_SENTENCE, type TokenView } from '../../../src/analysis/vader.ts';

type Rule = (t: TokenView, v: number[]) => void;

/** Token ranges [from, to) of the text's sentences. */
function sentences(t: TokenView): [number, number][] {
  const out: [number, number][] = [];
  let from = 0;
  for (let i = 0; i < t.lower.length; i++) {
    if (((t.ends[i] ?? 0) & END_SENTENCE) !== 0 || i === t.lower.length - 1) {
      out.push([from, i + 1]);
      from = i + 1;
    }
  }
  return out;
}

function clear(v: number[], from: number, to: number): void {
  for (let i = from; i < to; i++) v[i] = 0;
}

const HEDGES = new Set([
  'if',
  'unless',
  'whether',
  'would',
  'could',
  'might',
  'may',
  'should',
  'wish',
  'hope',
  'hopefully',
  'maybe',
  'perhaps',
]);
const LAUGHTER = new Set(['lol', 'lmao', 'lmfao', 'rofl', 'haha', 'hahaha', 'hehe', 'ha', 'xd']);
/** An emoticon (no two letters in a row: ":)", ":-D") or laughter. */
function emoticon(word: string): boolean {
  return !/[a-z]{2}/i.test(word) || LAUGHTER.has(word.toLowerCase());
}

export const NEUTRAL_RULES: readonly { name: string; rule: Rule }[] = [
  {
    name: 'question' /* a question asks, it does not judge: no valence in a sentence ending "?" */,
    rule: (t, v) => {
      for (const [a, b] of sentences(t)) if (((t.ends[b - 1] ?? 0) & END_QUESTION) !== 0) clear(v, a, b);
    },
  },
  {
    name: 'hedge' /* hedged or conditional: no valence in a clause with one of HEDGES */,
    rule: (t, v) => {
      let from = 0;
      for (let i = 0; i < t.lower.length; i++) {
        if ((t.ends[i] ?? 0) === 0 && i < t.lower.length - 1) continue;
        if (t.lower.slice(from, i + 1).some((w) => HEDGES.has(w))) clear(v, from, i + 1);
        from = i + 1;
      }
    },
  },
  {
    name: 'mixed' /* a sentence whose weaker side (after "but" weighs) is at least half its stronger side is neutral */,
    rule: (t, v) => {
      for (const [a, b] of sentences(t)) {
        let pivot = -1;
        for (let i = a; i < b && pivot < 0; i++) if (t.lower[i] === 'but' || t.lower[i] === 'however') pivot = i;
        let pos = 0;
        let neg = 0;
        for (let i = a; i < b; i++) {
          const x = (v[i] ?? 0) * (pivot < 0 ? 1 : i < pivot ? 0.5 : 1.5);
          if (x > 0) pos += x;
          else neg -= x;
        }
        if (pos > 0 && neg > 0 && Math.min(pos, neg) >= Math.max(pos, neg) / 2) clear(v, a, b);
      }
    },
  },
  {
    name: 'one mild word' /* strength is earned: a sentence whose one evaluative word is mild (|valence| under 1.5; "good" is 1.9) and not exclaimed is neutral */,
    rule: (t, v) => {
      for (const [a, b] of sentences(t)) {
        const scored = [];
        for (let i = a; i < b; i++) if ((v[i] ?? 0) !== 0) scored.push(i);
        const only = scored[0];
        if (
          scored.length === 1 &&
          only !== undefined &&
          Math.abs(v[only] ?? 0) < 1.5 &&
          ((t.ends[b - 1] ?? 0) & END_BANG) === 0
        )
          v[only] = 0;
      }
    },
  },
  {
    name: 'emoticons only' /* emoticons and laughter only intensify: a text whose only evaluative tokens they are is neutral */,
    rule: (t, v) => {
      if (v.every((x, i) => x === 0 || emoticon(t.words[i] ?? ''))) v.fill(0);
    },
  },
];

/** Sightline's scorer with `rules` run after its own. */
export function scorerWith(rules: readonly Rule[]): (text: string) => number {
  const vader = createVader({
    ...SCORER_OPTIONS,
    adjust: (t, v) => {
      keepEvaluative(t, v);
      for (const r of rules) r(t, v);
    },
  });
  return (text) => vader.score(plainForScoring(text, []));
}
