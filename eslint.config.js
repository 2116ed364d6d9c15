import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import domainTiers from './docs/domain-tiers.json' with { type: 'json' };

/**
 * Layers (docs/architecture.md "Layers"): each entry lists what a folder may
 * not import. `no-restricted-imports` keeps one list per file, so every
 * layer's list carries the shared ban on importing an entry point.
 */
const ENTRY_POINTS = {
  group: ['**/main.ts', '**/bin/*'],
  message: 'Entry points are run, never imported: move what you need into a module of its own.',
};

/** Outside src/domain, a domain folder is entered through its index.ts only. */
const DOMAIN_ENTRY = {
  regex: '(^|/)domain/[^/]+/(?!index\\.ts$)[^/]+$',
  message: 'Import a src/domain folder through its index.ts, never a file inside it.',
};

const layer = (files, ...patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [ENTRY_POINTS, ...patterns] }] },
});

/**
 * Tiers of src/domain (docs/domain-tiers.json, docs/architecture.md "Tiers
 * of the domain"), lowest first. A folder imports only folders listed before it: a lower tier, or an
 * earlier peer of its own tier, so no two folders can import each other in a
 * circle. Every folder is entered through its index.ts.
 */
const DOMAIN_TIERS = domainTiers.tiers.map((t) => [t.name, t.folders]);

const DOMAIN_LAYER = {
  group: ['**/http/**', '**/mcp/**', '**/share/**', '**/jobs/**', '**/queue/**', '**/cli/**'],
  message: 'src/domain is called by HTTP, MCP, jobs and the CLI; it imports none of them (it queues through ctx.jobs).',
};

const DOMAIN_DEEP = {
  regex: '^\\.\\./(?!\\.)[^/]+/(?!index\\.ts$)[^/]+$',
  message: 'Import another src/domain folder through its index.ts, never a file inside it.',
};

const anyOf = (folders) => `^\\.\\./(${folders.join('|')})/`;

function domainTier(tierIndex) {
  const [tier, folders] = DOMAIN_TIERS[tierIndex];
  const higher = DOMAIN_TIERS.slice(tierIndex + 1).flatMap(([, f]) => f);
  return folders.map((folder, i) => {
    const laterPeers = folders.slice(i + 1);
    const patterns = [ENTRY_POINTS, DOMAIN_LAYER, DOMAIN_DEEP];
    if (higher.length)
      patterns.push({
        regex: anyOf(higher),
        message: `src/domain/${folder} (tier: ${tier}) imports only lower tiers: a use case that must reach up lives in a higher tier.`,
      });
    if (laterPeers.length)
      patterns.push({
        regex: anyOf(laterPeers),
        message: `src/domain/${folder} imports only the peers of its tier (${tier}) listed before it, so no two folders import each other in a circle.`,
      });
    return { files: [`src/domain/${folder}/**`], rules: { 'no-restricted-imports': ['error', { patterns }] } };
  });
}

/**
 * src/context.ts and the per-process services it builds below the domain:
 * every domain file imports the context, so these import no domain folder
 * above its shared vocabulary (domain/common) and not the job table in jobs/
 * (which imports every handler), by value, by type or lazily; a service the
 * domain's policy configures is handed that policy by its caller
 * (docs/architecture.md "The context").
 */
const CONTEXT_FILES = ['src/context.ts', 'src/expiring-cache.ts', 'src/rate-limiters.ts', 'src/upload-pool.ts'];
const CONTEXT_MESSAGE =
  'src/context.ts and its services are imported by every domain file: they import no src/domain folder but common, and not jobs/ (the table is handed in: createContext `jobTable`).';
const CONTEXT_REACH = {
  regex: '(^|/)(domain/(?!common/)[^/]+/|jobs/)',
  message: CONTEXT_MESSAGE,
};
// The same in import() and import('...').T, which no-restricted-imports does not read (esquery regexes cannot hold '/').
const CONTEXT_REACH_SYNTAX = '/(^|\\x2F)(domain\\x2F(?!common\\x2F)[^\\x2F]+\\x2F|jobs\\x2F)/';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', '.sightline/', 'test/lint/fixtures/', 'examples/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through src/config.ts only.' },
      ],
      'no-restricted-imports': ['error', { patterns: [ENTRY_POINTS, DOMAIN_ENTRY] }],
      eqeqeq: ['error', 'smart'],
    },
  },
  layer(['src/analysis/**'], {
    group: [
      '**/db/**',
      '**/http/**',
      '**/mcp/**',
      '**/queue/**',
      '**/jobs/**',
      '**/assistants/**',
      '**/domain/**',
      '**/context.ts',
      'kysely',
      'pg',
      'ioredis',
      'bullmq',
    ],
    message: 'src/analysis is pure: no database, HTTP, queue or assistant code.',
  }),
  layer(['src/domain/**'], DOMAIN_LAYER),
  ...DOMAIN_TIERS.flatMap((_, i) => domainTier(i)),
  layer(['src/http/**'], DOMAIN_ENTRY, {
    group: ['**/db/**', 'kysely', 'pg'],
    allowTypeImports: true,
    message: 'src/http calls domain functions; queries live in src/domain (types from src/db are fine).',
  }),
  layer(['src/web/**'], {
    group: [
      '**/db/**',
      '**/http/**',
      '**/mcp/**',
      '**/share/**',
      '**/queue/**',
      '**/jobs/**',
      '**/domain/**',
      '**/context.ts',
      'kysely',
      'pg',
      'ioredis',
      'bullmq',
    ],
    message:
      'src/web fetches and reads customer sites; what to do with them is src/domain/pages and src/domain/crawlers.',
  }),
  layer(['src/logs/**'], {
    group: [
      '**/db/**',
      '**/http/**',
      '**/mcp/**',
      '**/share/**',
      '**/queue/**',
      '**/jobs/**',
      '**/domain/**',
      '**/context.ts',
      '**/site-fetch.ts',
      'kysely',
      'pg',
      'ioredis',
      'bullmq',
    ],
    message: 'src/logs reads log lines: no database, HTTP, queue or fetching; what is kept is src/domain/traffic.',
  }),
  layer(['src/mcp/**'], DOMAIN_ENTRY, {
    group: ['**/db/**', 'kysely', 'pg'],
    allowTypeImports: true,
    message: 'src/mcp calls routes and domain functions; queries live in src/domain (types from src/db are fine).',
  }),
  layer(['src/share/**'], DOMAIN_ENTRY, {
    group: ['**/db/**', '**/http/**', '**/mcp/**', '**/queue/**', 'kysely', 'pg', 'ioredis'],
    allowTypeImports: true,
    message: 'src/share renders what a domain function read: no database, HTTP, MCP or queue code.',
  }),
  layer(CONTEXT_FILES, DOMAIN_ENTRY, CONTEXT_REACH),
  {
    files: CONTEXT_FILES,
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: `ImportExpression[source.value=${CONTEXT_REACH_SYNTAX}]`, message: CONTEXT_MESSAGE },
        { selector: `TSImportType[source.value=${CONTEXT_REACH_SYNTAX}]`, message: CONTEXT_MESSAGE },
      ],
    },
  },
  {
    // Tests, benchmarks and scripts may reach a domain file directly: they check its parts.
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [ENTRY_POINTS] }] },
  },
  {
    // The launcher `npx sightline` runs: its one job is to load the CLI entry point.
    files: ['bin/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // Migrations are frozen in time: they must not follow today's schema types.
    files: ['migrations/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/config.ts', 'test/**', 'bench/**', 'scripts/**', 'examples/**', 'vitest.config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  prettier,
);
