import { describe, expect, it } from 'vitest';
import { parseSource } from '../../../scripts/names-build.ts';
import { foldsOf, groupsOf } from '../../../scripts/names-cv.ts';
import { fit, trainingRows, type TrainingRow } from '../../../scripts/names-train.ts';
import { READER_MODEL } from '../../../src/analysis/reader-model.ts';

/** The training and cross-validation scripts' plumbing, on small cases written here (not the names set). */
const rows = (spec: [string[], boolean, number][]): TrainingRow[] =>
  spec.flatMap(([features, label, n]) => Array.from({ length: n }, () => ({ id: 'x', features, label })));

describe('names-train: the fit', () => {
  const data = rows([
    [['bold'], true, 30],
    [['date'], false, 30],
    [['bold', 'date'], true, 5],
    [['bold', 'date'], false, 5],
    [[], false, 10],
    [[], true, 10],
  ]);

  it('weighs a feature by what the rows say: for the brand up, against it down', () => {
    const m = fit(data, 1);
    expect(m.weights['bold']).toBeGreaterThan(1);
    expect(m.weights['date']).toBeLessThan(-1);
    expect(Math.abs(m.bias)).toBeLessThan(0.5);
  });

  it('is deterministic, and a larger lambda pulls the weights towards the prior', () => {
    expect(fit(data, 1)).toEqual(fit(data, 1));
    const loose = fit(data, 0.1);
    const tight = fit(data, 100, { bold: 0, date: 0 });
    expect(Math.abs(tight.weights['bold'] ?? 0)).toBeLessThan(Math.abs(loose.weights['bold'] ?? 0));
    const pulled = fit(data, 100, { bold: 5 });
    expect(pulled.weights['bold']).toBeGreaterThan(tight.weights['bold'] ?? 0);
  });

  it('keeps the prior weight of a feature no row shows', () => {
    expect(fit(data, 1, { unseen: -2.5 }).weights['unseen']).toBe(-2.5);
  });
});

const SOURCE = [
  '=== t-01',
  'prompt: Which tool?',
  'industry: Software',
  'site: Notion | notion.so |',
  'competitor 1: Zyntrix | zyntrix.io |',
  'everyday: Notion',
  '---',
  'Teams pick ⟦+Zyntrix⟧ or **⟦+Notion⟧** for docs; the ⟦-notion⟧ of a wiki is older.',
  '=== t-02',
  'prompt: Which tool?',
  'industry: Software',
  'site: Acmeware | acmeware.com |',
  'competitor 1: Notion | notion.so |',
  'everyday: Notion',
  '---',
  'We moved from ⟦+Notion⟧ to ⟦+Acmeware⟧ last year.',
  '=== t-03',
  'prompt: Which day?',
  'industry: Software',
  'site: Monday | monday.com |',
  'competitor 1: Zyntrix | zyntrix.io |',
  'everyday: Monday',
  '---',
  'Plan it on ⟦-Monday⟧ morning, or ask ⟦+Zyntrix⟧.',
].join('\n');

describe('names-train and names-cv: rows and folds', () => {
  const cases = parseSource('common-noun', SOURCE);

  it('gives one labelled row per ambiguous occurrence the analysis reads, with its features', () => {
    const r = trainingRows(cases);
    expect(r.map((x) => [x.id, x.label])).toEqual([
      ['t-01', true],
      ['t-01', false],
      ['t-02', true],
      ['t-03', false],
    ]);
    expect(r[0]?.features).toContain('mark:bold');
    expect(r[3]?.features).toContain('date-after');
  });

  it('keeps every case of one name in one group and one fold', () => {
    const groups = groupsOf(cases).map((g) => g.map((c) => c.id));
    expect(groups).toContainEqual(['t-01', 't-02']);
    expect(groups).toContainEqual(['t-03']);
    const folds = foldsOf(cases, 2).map((f) => f.map((c) => c.id).sort());
    expect(folds).toContainEqual(['t-01', 't-02']);
  });

  it('the committed weights are a model the reader loads', () => {
    expect(Object.keys(READER_MODEL.weights).length).toBeGreaterThan(50);
    expect(Number.isFinite(READER_MODEL.bias)).toBe(true);
  });
});
