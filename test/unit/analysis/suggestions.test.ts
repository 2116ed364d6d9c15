import { describe, expect, it } from 'vitest';
import { tallySuggestions } from '../../../src/analysis/index.ts';
import { facts } from './helpers.ts';

describe('suggestions', () => {
  it.each([
    [
      'list items beside a tracked brand',
      '1. **Acme** – simple\n2. **Trello** – boards\n3. **Asana** – tasks\n',
      ['Trello', 'Asana'],
    ],
    ['bullets beside a competitor', '- Foo: fast\n- ClickUp: flexible\n', ['ClickUp']],
    ['names chained with a tracked brand', 'Good options are Acme, Trello and Monday.com.', ['Trello', 'Monday.com']],
    ['multi-word names', 'Try Foo or Zoho Projects.', ['Zoho Projects']],
    ['no tracked brand in the list', '1. Trello\n2. Asana\n', []],
    ['no tracked brand at all', 'Trello, Asana and Jira.', []],
    ['everyday words are not brands', '1. Acme\n2. Pricing\n3. Final Thoughts\n', []],
    ['tracked names are not suggested', '1. Acme\n2. Notion\n', []],
    ['brand terms are not suggested', '1. Foo\n2. AcmeCloud\n', []],
    ['lower-case words are not names', 'Acme, boards and lists.', []],
    ['each name once per answer', '1. Acme\n2. Trello\n\nAcme, Trello and more.', ['Trello']],
  ])('%s', (_rule, text, expected) => {
    expect(facts(text).suggestions).toEqual(expected);
  });

  it('tallies names seen in at least two answers, most frequent first', () => {
    expect(tallySuggestions([['Trello', 'Asana'], ['trello'], ['Asana', 'Trello'], ['Jira']])).toEqual([
      { name: 'Trello', count: 3 },
      { name: 'Asana', count: 2 },
    ]);
  });

  it('tally threshold can be changed', () => {
    expect(tallySuggestions([['Jira']], 1)).toEqual([{ name: 'Jira', count: 1 }]);
  });
});
