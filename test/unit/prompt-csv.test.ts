import { describe, expect, it } from 'vitest';
import {
  detectDelimiter,
  looksRaw,
  mapColumns,
  parsePromptCsv,
  readRow,
  splitCategories,
  startLine,
} from '../../src/domain/prompts/csv.ts';
import { ValidationError } from '../../src/errors.ts';

describe('mapColumns', () => {
  it('finds columns by name, ignoring case and spaces', () => {
    expect(mapColumns([' Prompt ', 'CATEGORIES', 'Intent', 'funnel', 'Status', 'notes'])).toEqual({
      text: 0,
      categories: 1,
      intent: 2,
      funnel: 3,
      status: 4,
    });
  });

  it.each(['text', 'prompt', 'query', 'keyword', 'question'])('reads %s as the text column', (name) => {
    expect(mapColumns(['x', name]).text).toBe(1);
  });

  it('takes the first column naming a field and ignores unknown ones', () => {
    expect(mapColumns(['keyword', 'query', 'category', 'categories', 'createdAt'])).toEqual({ text: 0, categories: 2 });
  });

  it('has no text column when none is named', () => {
    expect(mapColumns(['title', 'tags']).text).toBeUndefined();
  });
});

describe('looksRaw', () => {
  it.each([
    'best crm for startups',
    'help desk pricing',
    'zendesk alternatives',
    'Recommend a CRM for a small team',
    'canopy tents',
  ])('%s is a search query', (text) => {
    expect(looksRaw(text)).toBe(true);
  });

  it.each([
    'best crm for startups?',
    'What is the best CRM?',
    'which crm integrates with slack',
    'how to pick a help desk',
    'crm that works where teams are remote',
    'Is Zendesk worth it',
    'can I migrate from Zendesk',
    'does hubspot have a free plan',
    "what's the cheapest help desk",
  ])('%s is a question', (text) => {
    expect(looksRaw(text)).toBe(false);
  });
});

describe('splitCategories', () => {
  it('splits on ; and |, trims, drops empties and repeats ignoring case', () => {
    expect(splitCategories(' Pricing ; help desk|Help Desk ;; |Integrations')).toEqual([
      'Pricing',
      'help desk',
      'Integrations',
    ]);
  });
});

describe('detectDelimiter', () => {
  it('prefers commas, then tabs, then semicolons', () => {
    expect(detectDelimiter('text,category')).toBe(',');
    expect(detectDelimiter('text\tcategory')).toBe('\t');
    expect(detectDelimiter('text;category')).toBe(';');
    expect(detectDelimiter('text')).toBe(',');
  });
});

describe('startLine', () => {
  it('counts back the line breaks inside a record and skips blank lines before it', () => {
    expect(startLine(2, 'a,b\n')).toBe(2);
    expect(startLine(5, '\n\nB\n')).toBe(5);
    expect(startLine(5, '\n"multi\nline",x\n')).toBe(4);
    expect(startLine(7, '"a\nb\nc"')).toBe(5);
  });
});

describe('readRow', () => {
  const columns = { text: 0, categories: 1, intent: 2, funnel: 3, status: 4 };

  it('reads a full row, values ignoring case', () => {
    expect(readRow([' Which CRM? ', 'A;B', 'Commercial', 'DECISION', 'Active'], columns, 3)).toEqual({
      line: 3,
      text: 'Which CRM?',
      categories: ['A', 'B'],
      intent: 'commercial',
      funnel: 'decision',
      status: 'active',
    });
  });

  it('leaves empty and missing cells as not given', () => {
    expect(readRow(['Which CRM?'], columns, 2)).toEqual({
      line: 2,
      text: 'Which CRM?',
      categories: null,
      intent: null,
      funnel: null,
      status: null,
    });
  });

  it.each([
    [['', 'A'], /text is empty/],
    [['ab'], /3 to 500 characters \(has 2\)/],
    [['x'.repeat(501)], /has 501/],
    [['Which CRM?', 'a;b;c;d;e;f;g;h;i'], /at most 8 categories/],
    [['Which CRM?', 'c'.repeat(101)], /longer than 100/],
    [['Which CRM?', '', 'curious'], /intent "curious" is not one of informational/],
    [['Which CRM?', '', '', 'late'], /funnel "late"/],
    [['Which CRM?', '', '', '', 'on'], /status "on"/],
  ])('gives a reason for %j', (record, reason) => {
    const row = readRow(record, columns, 9);
    expect(row).toEqual({ line: 9, reason: expect.stringMatching(reason) });
  });
});

describe('parsePromptCsv', () => {
  it('numbers rows by file line, header = 1, across blank lines, CRLF and quoted line breaks', () => {
    const csv = '\uFEFFQuery,Category\r\nbest crm,Sales\r\n\r\n"Which\nCRM?",Sales\r\nab,\r\n   \r\n"ok, fine?",\r\n';
    const parsed = parsePromptCsv(csv);
    expect(parsed.count).toBe(4);
    expect(parsed.rows.map((r) => [r.line, r.text])).toEqual([
      [2, 'best crm'],
      [4, 'Which\nCRM?'],
      [8, 'ok, fine?'],
    ]);
    expect(parsed.errors).toEqual([{ line: 6, reason: expect.stringMatching(/3 to 500/) }]);
  });

  it('reads semicolon- and tab-separated files by their header', () => {
    expect(parsePromptCsv('text;category\nbest crm;Sales|Pricing\n').rows[0]).toMatchObject({
      text: 'best crm',
      categories: ['Sales', 'Pricing'],
    });
    expect(parsePromptCsv('keyword\tintent\nbest crm\tcommercial\n').rows[0]).toMatchObject({
      text: 'best crm',
      intent: 'commercial',
    });
  });

  it('reports a quote never closed at the row where it opens', () => {
    const parsed = parsePromptCsv('text\nfirst row\n"never closed\nsecond\n');
    expect(parsed.rows.map((r) => r.text)).toEqual(['first row']);
    expect(parsed.errors).toEqual([{ line: 3, reason: expect.stringMatching(/never closed/) }]);
    expect(parsed.count).toBe(2);
  });

  it('refuses a file without a text column or without a header', () => {
    expect(() => parsePromptCsv('title,tags\na,b\n')).toThrow(ValidationError);
    expect(() => parsePromptCsv('\n  \n')).toThrow(/no header row/);
    try {
      parsePromptCsv('title\nx\n');
    } catch (err) {
      expect((err as ValidationError).fields).toEqual({ contents: expect.stringMatching(/no text column.*"title"/) });
    }
  });
});
