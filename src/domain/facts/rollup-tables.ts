import type { RollupSiteDayTable } from '../../db/schema.ts';
import { SITE_TYPES, type Period } from '../common/index.ts';

/**
 * The one definition of the rollup tables' columns (migrations
 * 20261122T0500 and 20261122T0700 create them): the incremental writer, the
 * rebuild, the report readers and the rollup tests all read these lists.
 */
export interface RollupTable {
  name: string;
  /** Column and its SQL type, in table order; the first `keys` columns are the key. */
  columns: [string, string][];
  keys: number;
  /** Period kinds kept; all unless said. */
  kinds?: readonly Period[];
}

/** Longest search kept, in characters: keys stay well inside a btree entry. */
export const SEARCH_MAX_CHARS = 500;

export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`);

/** Counters of `rollup_site_day`, per (site, day, provider), as the report readers name them. */
export const SITE_DAY_COUNTERS = [
  'answers',
  'failed',
  'mentioned',
  'ownCited',
  'rankSum',
  'rankCount',
  'competitorMentions',
  'positive',
  'neutral',
  'negative',
  'toneSum',
] as const;
export type SiteDayCounter = (typeof SITE_DAY_COUNTERS)[number];
type TableCounter = Exclude<keyof RollupSiteDayTable, 'siteId' | 'day' | 'provider'>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile when the list and the table type disagree. */
export type SiteDayCountersMatchTable = Same<SiteDayCounter, TableCounter> extends true ? true : never;
const countersMatch: SiteDayCountersMatchTable = true;
void countersMatch;

export const SITE_DAY: RollupTable = {
  name: 'rollup_site_day',
  columns: [
    ['site_id', 'int'],
    ['day', 'date'],
    ['provider', 'text'],
    ...SITE_DAY_COUNTERS.map((c): [string, string] => [snakeCase(c), c === 'toneSum' ? 'real' : 'int']),
  ],
  keys: 3,
};

/**
 * The per-prompt tables of competitors, own pages and searches keep no day
 * rows: those would be about one row per answer, most of what reanalysis
 * would rebuild. A day's view reads that day's facts instead (at most prompts
 * x assistants x scans that day; see `dayRows` in ./period-rows.ts).
 */
export const COARSE_KINDS: readonly Period[] = ['week', 'month', 'quarter'];

const PERIOD_KEY: [string, string][] = [
  ['site_id', 'int'],
  ['period', 'text'],
  ['start', 'date'],
];
const counters = (...names: string[]): [string, string][] => names.map((n) => [n, 'int']);

/**
 * rollup_prompt_period's column of each site type's citations (domains not
 * empty, as rollup_source_period counts them): the sources report's
 * site-type share intervals read them per prompt. A table of their own, one
 * row per (site type, prompt), was nine rows an answer to write; as columns
 * of the prompt's row, which every answer writes anyway, they cost nothing
 * more per row (migration 20261130T1000).
 */
export const siteTypeColumn = (type: (typeof SITE_TYPES)[number]) => `${type}_citations`;

/** Counter tables keyed by (site, period kind, period start, ...). */
export const PERIOD_TABLES = {
  promptPeriod: {
    name: 'rollup_prompt_period',
    columns: [
      ...PERIOD_KEY,
      ['prompt_id', 'int'],
      ...counters(
        'answers',
        'failed',
        'cited',
        'named',
        'lost',
        'missing',
        'mentioned',
        'competitor_mentions',
        'rank_sum',
        'rank_count',
      ),
      ...counters(...SITE_TYPES.map(siteTypeColumn)),
    ],
    keys: 4,
  },
  /** Per (prompt, assistant): the spread over prompts behind each assistant's intervals and the tone shares' (migrations 20261126T0900, 20261127T1200). */
  promptProvider: {
    name: 'rollup_prompt_provider_period',
    columns: [
      ...PERIOD_KEY,
      ['prompt_id', 'int'],
      ['provider', 'text'],
      ...counters(
        'answers',
        'failed',
        'mentioned',
        'own_cited',
        'competitor_mentions',
        'positive',
        'neutral',
        'negative',
      ),
    ],
    keys: 5,
    kinds: COARSE_KINDS,
  },
  /** Per (competitor, prompt, assistant): each competitor's visibility interval per assistant (migration 20261127T1200). */
  promptProviderCompetitor: {
    name: 'rollup_prompt_provider_competitor_period',
    columns: [
      ...PERIOD_KEY,
      ['competitor_id', 'int'],
      ['prompt_id', 'int'],
      ['provider', 'text'],
      ...counters('mentioned'),
    ],
    keys: 6,
    kinds: COARSE_KINDS,
  },
  /** Per (cited domain, prompt): the sources report's intervals (migration 20261127T1200). */
  promptSource: {
    name: 'rollup_prompt_source_period',
    columns: [
      ...PERIOD_KEY,
      ['domain', 'text'],
      ['site_type', 'text'],
      ['prompt_id', 'int'],
      ...counters('answers', 'names_brand', 'citations'),
    ],
    keys: 6,
    kinds: COARSE_KINDS,
  },
  promptCompetitor: {
    name: 'rollup_prompt_competitor_period',
    columns: [...PERIOD_KEY, ['competitor_id', 'int'], ['prompt_id', 'int'], ...counters('mentioned', 'both_named')],
    keys: 5,
    kinds: COARSE_KINDS,
  },
  competitor: {
    name: 'rollup_competitor_period',
    columns: [
      ...PERIOD_KEY,
      ['competitor_id', 'int'],
      ['provider', 'text'],
      ...counters('mentioned', 'cited', 'both_named', 'brand_ahead', 'competitor_ahead'),
    ],
    keys: 5,
  },
  source: {
    name: 'rollup_source_period',
    columns: [
      ...PERIOD_KEY,
      ['domain', 'text'],
      ['site_type', 'text'],
      ...counters('answers', 'names_brand', 'citations'),
    ],
    keys: 5,
  },
  page: {
    name: 'rollup_page_period',
    columns: [...PERIOD_KEY, ['competitor_id', 'int'], ['url', 'text'], ...counters('answers')],
    keys: 5,
  },
  ownPagePrompt: {
    name: 'rollup_own_page_prompt_period',
    columns: [...PERIOD_KEY, ['url', 'text'], ['prompt_id', 'int'], ['provider', 'text'], ...counters('answers')],
    keys: 6,
    kinds: COARSE_KINDS,
  },
  search: {
    name: 'rollup_search_period',
    columns: [...PERIOD_KEY, ['prompt_id', 'int'], ['query', 'text'], ...counters('answers')],
    keys: 5,
    kinds: COARSE_KINDS,
  },
  model: {
    name: 'rollup_model_period',
    columns: [...PERIOD_KEY, ['provider', 'text'], ['model', 'text'], ...counters('answers')],
    keys: 5,
  },
  suggestion: {
    name: 'rollup_suggestion_period',
    columns: [...PERIOD_KEY, ['name', 'text'], ...counters('answers')],
    keys: 4,
  },
} satisfies Record<string, RollupTable>;

/**
 * Each (prompt, assistant)'s latest answer with its scan's samples of it
 * (asked, answered, named or cited), and per prompt its last scan, mean rank
 * and the samples summed over assistants: overwritten, not summed.
 */
export const LATEST_TABLES = ['rollup_prompt_latest', 'rollup_prompt_summary'] as const;

/** Every rollup table a site has rows in: what a rebuild recomputes and a site's deletion removes. */
export const ROLLUP_TABLE_NAMES: readonly string[] = [
  SITE_DAY.name,
  ...Object.values(PERIOD_TABLES).map((t) => t.name),
  ...LATEST_TABLES,
];
