import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * Layers (docs/architecture.md "Layers"): each entry lists what a folder may
 * not import. `no-restricted-imports` keeps one list per file, so every
 * layer's list carries the shared ban on importing an entry point.
 */
const ENTRY_POINTS = { group: ['**/main.ts', '**/bin/*'], message: 'Entry points are run, never imported: move what you need into a module of its own.' };

const layer = (files, ...patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [ENTRY_POINTS, ...patterns] }] },
});

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', '.sightline/', 'test/lint/fixtures/', 'examples/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through src/config.ts only.' }],
      'no-restricted-imports': ['error', { patterns: [ENTRY_POINTS] }],
      eqeqeq: ['error', 'smart'],
    },
  },
  layer(['src/analysis/**'], {
    group: ['**/db/**', '**/http/**', '**/mcp/**', '**/queue/**', '**/jobs/**', '**/assistants/**', '**/domain/**', '**/context.ts', 'kysely', 'pg', 'ioredis', 'bullmq'],
    message: 'src/analysis is pure: no database, HTTP, queue or assistant code.',
  }),
  layer(['src/domain/**'], {
    group: ['**/http/**', '**/mcp/**', '**/share/**', '**/jobs/**', '**/queue/**', '**/cli/**'],
    message: 'src/domain is called by HTTP, MCP, jobs and the CLI; it imports none of them (it queues through ctx.jobs).',
  }),
  layer(['src/http/**'], {
    group: ['**/db/**', 'kysely', 'pg'],
    allowTypeImports: true,
    message: 'src/http calls domain functions; queries live in src/domain (types from src/db are fine).',
  }),
  layer(['src/web/**'], {
    group: ['**/db/**', '**/http/**', '**/mcp/**', '**/share/**', '**/queue/**', '**/jobs/**', '**/domain/**', '**/context.ts', 'kysely', 'pg', 'ioredis', 'bullmq'],
    message: 'src/web fetches and reads customer sites; what to do with them is src/domain/pages and src/domain/crawlers.',
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
  layer(['src/mcp/**'], {
    group: ['**/db/**', 'kysely', 'pg'],
    allowTypeImports: true,
    message: 'src/mcp calls routes and domain functions; queries live in src/domain (types from src/db are fine).',
  }),
  layer(['src/share/**'], {
    group: ['**/db/**', '**/http/**', '**/mcp/**', '**/queue/**', 'kysely', 'pg', 'ioredis'],
    allowTypeImports: true,
    message: 'src/share renders what a domain function read: no database, HTTP, MCP or queue code.',
  }),
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
