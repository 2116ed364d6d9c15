import { describe, expect, it } from 'vitest';
import { APPROACHES, SENTENCES, evaluate } from './sentiment-evaluation.ts';

describe('sentiment evaluation', () => {
  it('has at least 150 labelled brand sentences in every class', () => {
    expect(SENTENCES.length).toBeGreaterThanOrEqual(150);
    for (const label of ['positive', 'neutral', 'negative']) expect(SENTENCES.filter((s) => s.label === label).length).toBeGreaterThanOrEqual(40);
  });

  it('the kept approach beats every other one and stays above 85% accuracy', () => {
    const reports = Object.entries(APPROACHES).map(([name, a]) => evaluate(name, a));
    const kept = reports.find((r) => r.approach.startsWith('kept'));
    expect(kept?.accuracy).toBeGreaterThanOrEqual(85);
    for (const r of reports) if (r !== kept) expect(kept?.accuracy).toBeGreaterThan(r.accuracy);
  });
});
