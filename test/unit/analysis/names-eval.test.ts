import { describe, expect, it } from 'vitest';
import { parseSource } from '../../../scripts/names-build.ts';
import { figuresOf, markdownTable, rowsOf, scoreCases } from '../../../scripts/names-eval.ts';

/**
 * The scorer's plumbing, on ordinary names whose reading no rule disputes;
 * how the analysis does on the everyday-word set is a figure the scorer
 * prints, never an assertion (the analysis is not tuned yet).
 */
const SOURCE = [
  '=== s-01',
  'prompt: Which tool?',
  'industry: Software',
  'site: Acmeware | acmeware.com |',
  'competitor 7: Zyntrix | zyntrix.io |',
  'competitor 9: Quorvane | quorvane.com |',
  'everyday: Acmeware',
  '---',
  'Pick ⟦+Acmeware⟧ or ⟦+Zyntrix⟧; details at ⟦+acmeware.com⟧.',
].join('\n');

describe('names scorer: figures', () => {
  it('counts true and false yeses and noes, and gives percentages to one decimal', () => {
    const rows = [
      { gold: true, predicted: true },
      { gold: true, predicted: false },
      { gold: false, predicted: true },
      { gold: false, predicted: false },
      { gold: false, predicted: false },
      { gold: true, predicted: true },
    ];
    expect(figuresOf(rows)).toEqual({
      n: 6,
      goldYes: 3,
      predictedYes: 3,
      tp: 2,
      fp: 1,
      fn: 1,
      tn: 2,
      accuracy: 66.7,
      precision: 66.7,
      recall: 66.7,
    });
  });

  it('gives no precision when nothing is predicted, no recall when nothing is gold', () => {
    expect(figuresOf([{ gold: false, predicted: false }])).toMatchObject({
      accuracy: 100,
      precision: null,
      recall: null,
    });
  });
});

describe('names scorer: one case through the analysis', () => {
  const { pairs, occurrences, strays } = scoreCases(parseSource('weekday', SOURCE));

  it('judges every (case, entity) pair, competitors by id, including one never named', () => {
    expect(pairs.map((p) => [p.entity, p.name, p.gold, p.predicted])).toEqual([
      ['brand', 'Acmeware', true, true],
      ['competitor:7', 'Zyntrix', true, true],
      ['competitor:9', 'Quorvane', false, false],
    ]);
  });

  it('judges every labelled occurrence against the mention that overlaps it, domains included', () => {
    expect(occurrences.map((o) => [o.entity, o.text, o.gold, o.predicted])).toEqual([
      ['brand', 'Acmeware', true, true],
      ['competitor:7', 'Zyntrix', true, true],
      ['brand', 'acmeware.com', true, true],
    ]);
    expect(strays).toEqual([]);
  });

  it('tables one row per kind present, per half asked for, and in all', () => {
    const rows = rowsOf(pairs, ['dev']);
    expect(rows.map((r) => r.group)).toEqual(['weekday', 'half: dev', 'all scored']);
    const table = markdownTable('pairs', rows).split('\n');
    expect(table[2]).toMatch(/^\| group \| n \| gold yes \| predicted yes \| accuracy % \| precision % \| recall %/);
    expect(table).toContain('| all scored | 3 | 2 | 2 | 100.0 | 100.0 | 100.0 | 0 | 0 |');
  });
});
