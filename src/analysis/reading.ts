import type { OtherSense } from './lexicon.ts';
import { IS_WORD } from './fold.ts';
import { sentenceAround } from './sentences.ts';

/**
 * Whether one occurrence of an ambiguous name ("Monday", "Notion", "you",
 * "HP") means the brand, read from its surroundings as a careful reader
 * does: the name's other sense sets how much proof is needed, and cues
 * around it add or take away weight (docs/analysis.md "Everyday-word
 * names"). A sum above zero means the brand. Only ambiguous names come
 * here, so plain names pay nothing for it.
 */

export interface Occurrence {
  text: string;
  start: number;
  end: number;
  sense: OtherSense;
  /** the spellings the book gives the name ("Notion", "HubSpot") */
  casings: readonly string[];
}

/** What the rest of the answer says about the entity. */
export interface AnswerEvidence {
  /** the same entity is named elsewhere without doubt (its domain, a plain alias, a marked name) */
  namedElsewhere: boolean;
  /** another tracked brand is named in the same sentence */
  brandInSentence: boolean;
  /** another tracked brand sits next to it in a list ("Asana, Monday and Trello") */
  brandBeside: boolean;
  /** the prompt names it too */
  inPrompt: boolean;
  /** it heads an item of a list written on one line ("Top options: 1. Monday 2. Asana") */
  listHead: boolean;
}

export interface Reading {
  means: boolean;
  score: number;
  /** the cues that decided, strongest first, for the names page and tests */
  cues: string[];
}

/** Weight a name starts with: how often its other sense is the one meant when nothing else tells. */
const PRIOR: Record<OtherSense, number> = {
  short: -0.5,
  function: -2.5,
  weekday: -1,
  month: -1,
  sky: -1,
  animal: -0.5,
  person: -1,
  place: -1,
  language: -1,
  word: -0.5,
};

/** Senses English always writes with a capital, so a capital says little. */
const CAPITALISED_ANYWAY = new Set<OtherSense>(['weekday', 'month', 'sky', 'person', 'place', 'language']);

const PRODUCT_NOUNS = new Set(
  (
    'app apps platform platforms software tool tools suite crm erp api apis dashboard dashboards workspace workspaces subscription subscriptions tier tiers plan plans pricing price prices ' +
    'feature features integration integrations extension extensions plugin plugins add-on add-ons template templates automation automations board boards account accounts ' +
    'interface ui ux users user customers customer support onboarding trial demo license licence seats seat version release update updates mobile desktop web cloud service services ' +
    'product products solution solutions system systems editor builder checkout terminal terminals reader readers device devices printer printers laptop laptops phone phones store ' +
    'marketplace card cards rewards points membership members delivery deliveries shipping menu menus stock shares'
  ).split(' '),
);

/** Verbs a product is the subject of ("Monday offers", "Notion lets you"). */
const PRODUCT_VERBS = new Set(
  (
    'offers offer provides provide integrates integrate supports support lets let allows allow includes include costs cost charges charge starts start ships ship syncs sync connects ' +
    'connect scales scale automates automate handles handle focuses focus excels excel shines shine stands tracks track stores store hosts host runs run delivers deliver ' +
    'helps help gives give features feature bundles bundle adds add launched launches released releases announced announces acquired raised sells sell makes offered provided integrated ' +
    'supported included cost charged started shipped handled focused tracked stored delivered helped gave added made has have had works work comes come'
  ).split(' '),
);

/** Words before a name that take a product ("switch to", "tools like", "vs"). */
const PRODUCT_BEFORE_1 = new Set(
  (
    'use uses using used try tries tried trying adopt adopted adopting choose chose choosing pick picked picking recommend recommended consider considered considering evaluate evaluated ' +
    'vs versus via than including include includes install installed installing buy bought subscribe subscribed prefer preferred prefers love loved like liked rate rated review reviewed compare compared ' +
    'outperforms beats beat replaced replace replacing'
  ).split(' '),
);
const PRODUCT_BEFORE_2 = new Set(
  [
    'switch to',
    'switched to',
    'switching to',
    'migrate to',
    'migrated to',
    'migrating to',
    'move to',
    'moved to',
    'moving to',
    'such as',
    'compared to',
    'compared with',
    'alternative to',
    'alternatives to',
    'integrates with',
    'integration with',
    'sign up',
    'signed up',
    'pay for',
    'paid for',
    'paying for',
    'go with',
    'went with',
    'stick with',
    'built on',
    'built with',
    'powered by',
    'tools like',
    'apps like',
    'platforms like',
    'options like',
    'products like',
    'brands like',
    'services like',
    'competitors like',
    'rivals like',
    'apart from',
    'ahead of',
    'behind',
    'up to',
  ].filter((x) => x.includes(' ')),
);

/** "X is a/an ... (tool|platform|...)" and its kin: "a solid pick", "the best option". */
const CHOICE_NOUNS = new Set('pick choice option options alternative alternatives fit bet winner favorite favourite leader contender standout'.split(' '));

const DATE_BEFORE = new Set(
  'on by until till next last this every each since from before after through thru early late mid during starting ending coming past following following until of in every other'.split(
    ' ',
  ),
);
const DATE_AFTER = new Set(
  'morning mornings afternoon afternoons evening evenings night nights through thru to or and deadline deadlines holiday holidays break weekend blues'.split(' '),
);
const PERSON_TITLES = new Set(
  'mr mrs ms dr sir dame lord lady president senator governor ceo founder author actor actress singer st saint king queen prince princess uncle aunt'.split(' '),
);
const PLACE_AFTER = new Set(
  'river rivers rainforest basin delta valley city county airport region forest jungle area metro state island islands mountains beach coast bay lake'.split(' '),
);
const PLACE_BEFORE = new Set('in near from around outside downtown across visit visiting visited into throughout'.split(' '));
const SKY_WORDS = new Set(
  'planet planets orbit orbits orbiting moon moons mission missions nasa solar telescope rover god goddess myth myths mythology greek roman norse retrograde atmosphere surface spacecraft probe temple'.split(
    ' ',
  ),
);
const ANIMAL_WORDS = new Set(
  'species habitat habitats prey cub cubs fur zoo wild wildlife hunt hunts hunting eat eats population populations nest nests feathers wings wingspan predator predators breed breeds bird birds animal animals cat cats'.split(
    ' ',
  ),
);
const LANGUAGE_WORDS = new Set(
  'language languages speakers speaker speaking speak speaks spoken translation translate translated accent dialect grammar words word fluent native subtitles'.split(' '),
);
const DETERMINERS = new Set('a an the this that these those my your our their his her its some any no each every another one'.split(' '));
const MODALS = new Set("to can will would should could may might must you we they i don’t don't let lets".split(' '));

interface Around {
  before: string[];
  after: string[];
  /** the characters right after the name, up to the next word */
  glue: string;
  /** the characters right before the name, back to the previous word */
  lead: string;
  /** the word after, as written */
  afterWritten: string;
  /** the word before, as written */
  beforeWritten: string;
}

function isWordAt(text: string, i: number): boolean {
  return i >= 0 && i < text.length && (IS_WORD[text.charCodeAt(i)] === 1 || text[i] === "'" || text[i] === '’');
}

/** Up to `n` words each side, within the sentence (stopping at `.!?` and line breaks). */
function around(text: string, start: number, end: number, n: number): Around {
  const before: string[] = [];
  const after: string[] = [];
  let i = start - 1;
  let lead = '';
  let beforeWritten = '';
  while (before.length < n && i >= 0) {
    let gap = '';
    while (i >= 0 && !isWordAt(text, i)) {
      const c = text[i] as string;
      if (c === '\n' || c === '.' || c === '!' || c === '?' || c === ':' || c === ';') return finish();
      gap = c + gap;
      i--;
    }
    if (before.length === 0) lead = gap;
    const e = i + 1;
    while (i >= 0 && isWordAt(text, i)) i--;
    if (e - (i + 1) <= 0) break;
    const w = text.slice(i + 1, e);
    if (before.length === 0) beforeWritten = w;
    before.push(w.toLowerCase());
  }
  return finish();

  function finish(): Around {
    let j = end;
    let glue = '';
    let afterWritten = '';
    while (after.length < n && j < text.length) {
      while (j < text.length && !isWordAt(text, j)) {
        const c = text[j] as string;
        if (after.length === 0) glue += c;
        if (c === '\n' || c === '!' || c === '?' || ((c === '.' || c === ':' || c === ';') && !isWordAt(text, j + 1)))
          return { before, after, glue, lead, afterWritten, beforeWritten };
        j++;
      }
      const s = j;
      while (j < text.length && isWordAt(text, j)) j++;
      if (j === s) break;
      const w = text.slice(s, j);
      if (after.length === 0) afterWritten = w;
      after.push(w.toLowerCase());
    }
    return { before, after, glue, lead, afterWritten, beforeWritten };
  }
}

const SKIP_BACK = new Set([' ', '\t', '*', '_', '#', '>', '[', '(', '"', "'", '`', '-', '+', '•', '|']);

function atSentenceStart(text: string, start: number): boolean {
  let i = start - 1;
  while (i >= 0 && SKIP_BACK.has(text[i] ?? '')) i--;
  if (i < 0) return true;
  const c = text[i];
  return (
    c === '\n' ||
    c === '.' ||
    c === '!' ||
    c === '?' ||
    c === ':' ||
    (c !== undefined && c >= '0' && c <= '9' && /(?:^|\n)\s*\d{1,3}[.)]\s*$/.test(text.slice(Math.max(0, i - 6), start)))
  );
}

/** Bold, italic, code, a link text, a heading, a table's first cell or the head of a list item. */
function markedAsName(text: string, start: number, end: number): string | null {
  const before = text[start - 1];
  const after = text[end];
  if ((before === '*' || before === '_') && (after === '*' || after === '_')) return 'written in bold or italics';
  if (before === '`' || before === '[') return 'written as code or link text';
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const head = text.slice(lineStart, start);
  if (/^\s*#/.test(head)) return 'in a heading';
  if (/^\s*\|\s*(?:\*\*)?$/.test(head)) return "in a table's first column";
  if (/^\s*(?:\d{1,3}[.)]|[-*+•])\s+(?:\*\*|__)?$/.test(head) && /^(?:\*\*|__)?\s*(?:$|\n|[(–—:,]|\s+[-–—]\s)/.test(text.slice(end, end + 4))) return 'heads a list item';
  return null;
}

type Casing = 'lower' | 'capital' | 'caps' | 'book';

function casingOf(written: string, casings: readonly string[]): Casing {
  const letters = written.replace(/[^\p{L}]/gu, '');
  if (letters.length >= 3 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()) return 'caps';
  if (letters === letters.toLowerCase()) return casings.includes(written) && written !== written.toUpperCase() ? 'book' : 'lower';
  // A capital past the first letter that the book gives ("HubSpot", "HP") is the writer's, never the sentence's.
  if (casings.includes(written) && /\p{Lu}/u.test(letters.slice(1))) return 'book';
  return 'capital';
}

/** Reads one occurrence; `evidence` is what the rest of the answer says. */
export function readOccurrence(o: Occurrence, evidence: AnswerEvidence): Reading {
  const { text, start, end, sense } = o;
  const written = text.slice(start, end);
  const cues: { w: number; why: string }[] = [{ w: PRIOR[sense], why: `the name is ${sense === 'word' ? 'an everyday word' : `also a ${sense}`}` }];
  const cue = (w: number, why: string) => cues.push({ w, why });
  const a = around(text, start, end, 3);
  const [b1 = '', b2 = ''] = a.before;
  const [a1 = '', a2 = '', a3 = ''] = a.after;
  const possessive = /^['’]s?$/.test(a1) || a1 === "'s" || a1 === '’s';
  const next = possessive ? a2 : a1;
  const next2 = possessive ? a3 : a2;
  const sentenceStart = atSentenceStart(text, start);
  const casing = casingOf(written, o.casings);
  const shouting = casing === 'caps' && allCapitalsAround(text, start, end);

  const mark = markedAsName(text, start, end) ?? (evidence.listHead ? 'heads a list item' : null);
  if (mark) cue(3, mark);
  else if (a.glue.startsWith(':') && sentenceStart) cue(2.5, 'introduced with a colon');
  if (a.glue.startsWith('.com') || a.glue.startsWith('.io')) cue(2, 'written with its domain');

  // Casing: what the writer's capitals say beyond the sentence's own. Short names keep their exact casing,
  // since capitals are how short words are stressed ("GO!" is no sign of a brand "Go").
  if (sense === 'short' && !o.casings.includes(written)) cue(-1.5, 'not written as the brand writes it');
  else if (casing === 'book') cue(2.5, 'written as the brand writes it');
  else if (casing === 'caps' && !shouting) cue(1.5, 'in capitals in mixed-case text');
  else if (casing === 'capital' && !sentenceStart) {
    if (!CAPITALISED_ANYWAY.has(sense)) cue(sense === 'function' ? 1.5 : 2.5, 'capitalised mid-sentence');
  } else if (casing === 'lower') {
    if (sense === 'function') cue(-4, 'a common word in lower case');
    else if (sense === 'short') cue(-1.5, 'short word in lower case');
    else if (sense === 'month' && (written === 'may' || written === 'march')) cue(-3, 'a verb in lower case');
    else if (!CAPITALISED_ANYWAY.has(sense)) cue(-1.5, 'in lower case');
  }

  // A product's company: list neighbours, product verbs and nouns, choosing words.
  if (evidence.brandBeside) cue(2.5, 'listed beside other brands');
  else if (evidence.brandInSentence) cue(1, 'another brand in the sentence');
  if (evidence.namedElsewhere) cue(1.5, 'the answer names the brand elsewhere');
  if (evidence.inPrompt) cue(1, 'the prompt names it');
  if (PRODUCT_NOUNS.has(next) && !(possessive && CAPITALISED_ANYWAY.has(sense) && DATE_AFTER.has(next))) cue(possessive ? 2.5 : 2, `followed by "${next}"`);
  else if (PRODUCT_VERBS.has(a1)) cue(2, `the subject of "${a1}"`);
  if ((a1 === 'is' || a1 === 'was' || a1 === 'remains') && (CHOICE_NOUNS.has(a3) || CHOICE_NOUNS.has(a.after[3] ?? '') || PRODUCT_NOUNS.has(a3)))
    cue(2, 'called a product or a choice');
  if (PRODUCT_BEFORE_1.has(b1)) cue(2, `after "${b1}"`);
  else if (PRODUCT_BEFORE_2.has(`${b2} ${b1}`)) cue(2.5, `after "${b2} ${b1}"`);
  else if (b1 === 'with' || b1 === 'like' || b1 === 'or' || b1 === 'and') cue(0.5, `after "${b1}"`);

  // The other sense's own company.
  if (sense === 'weekday' || sense === 'month') {
    if (DATE_BEFORE.has(b1)) cue(-3.5, `a date phrase ("${b1} ${written}")`);
    if (DATE_AFTER.has(next) || /^\d/.test(a1) || /^(?:\d|\s*\d)/.test(a.glue.replace(/^[,\s]+/, ''))) cue(-3.5, 'a date or time phrase');
    if (possessive && !PRODUCT_NOUNS.has(next)) cue(-1.5, 'a possessive of the day');
  }
  if (sense === 'person') {
    if (PERSON_TITLES.has(b1) || (/^\p{Lu}\p{Ll}+$/u.test(a.beforeWritten) && a.lead === ' ' && !sentenceStartOf(text, start - a.beforeWritten.length - 1)))
      cue(-3.5, 'part of a person’s name');
    if (/^\p{Lu}\p{Ll}+$/u.test(a.afterWritten) && a.glue === ' ' && !PRODUCT_NOUNS.has(a1)) cue(-2.5, 'followed by a surname');
  }
  if (sense === 'place' || sense === 'person') {
    if (PLACE_AFTER.has(next)) cue(-3.5, `a place ("${written} ${next}")`);
    if (/^,\s*\p{Lu}/u.test(text.slice(end, end + 3)) && /^\p{Lu}/u.test(a.afterWritten) && !evidence.brandBeside) cue(-2, 'a place and its region');
    if (PLACE_BEFORE.has(b1) && sense === 'place') cue(-1.5, `after "${b1}"`);
  }
  if (sense === 'sky' && (SKY_WORDS.has(next) || SKY_WORDS.has(b1) || SKY_WORDS.has(next2) || SKY_WORDS.has(b2))) cue(-3.5, 'the planet or the myth');
  if (sense === 'animal' && (ANIMAL_WORDS.has(next) || ANIMAL_WORDS.has(b1) || ANIMAL_WORDS.has(next2))) cue(-3.5, 'the animal');
  if (sense === 'language' && (LANGUAGE_WORDS.has(next) || LANGUAGE_WORDS.has(b1) || b1 === 'in')) cue(-3, 'the language');
  // Where casing tells nothing, the words around decide: a determiner or "of" makes it a common noun.
  if (casing === 'lower' || shouting || (sentenceStart && casing === 'capital')) {
    if (DETERMINERS.has(b1)) cue(-2, `after "${b1}"`);
    if (a1 === 'of') cue(-2, `"${written} of"`);
    if (MODALS.has(b1) && sense !== 'weekday' && sense !== 'month') cue(-1.5, `a verb after "${b1}"`);
  }

  const score = cues.reduce((s, c) => s + c.w, 0);
  cues.sort((x, y) => Math.abs(y.w) - Math.abs(x.w));
  return { means: score > 0, score, cues: cues.map((c) => c.why) };
}

/** Whether the sentence holding the name has no lower-case letter besides it: there, capitals say nothing. */
function allCapitalsAround(text: string, start: number, end: number): boolean {
  const s = sentenceAround(text, start);
  for (let i = s.start; i < s.end; i++) {
    if (i >= start && i < end) continue;
    const c = text[i] as string;
    if (c !== c.toUpperCase()) return false;
  }
  return true;
}

function sentenceStartOf(text: string, at: number): boolean {
  return atSentenceStart(text, Math.max(0, at));
}
