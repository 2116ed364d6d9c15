import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import domainTiers from '../../docs/domain-tiers.json' with { type: 'json' };

/**
 * The layers of docs/architecture.md are kept by `npm run lint`: each
 * fixture breaks one rule and is linted as if it lived in the layer it
 * breaks, and must fail with no-restricted-imports.
 */
const eslint = new ESLint({ cwd: path.resolve('.') });

async function lintAs(fixture: string, filePath: string, rule = 'no-restricted-imports') {
  const code = await readFile(path.resolve('test/lint/fixtures', fixture), 'utf8');
  const [result] = await eslint.lintText(code, { filePath: path.resolve(filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId === rule).map((m) => m.message);
}

describe('layers the linter keeps', () => {
  it.each([
    ['analysis-imports-db.ts', 'src/analysis/fixture.ts', /src\/analysis is pure/],
    ['analysis-imports-kysely.ts', 'src/analysis/fixture.ts', /src\/analysis is pure/],
    ['domain-imports-http.ts', 'src/domain/sites/fixture.ts', /imports none of them/],
    ['domain-imports-jobs.ts', 'src/domain/sites/fixture.ts', /imports none of them/],
    ['domain-imports-queue.ts', 'src/domain/scans/fixture.ts', /imports none of them/],
    ['http-imports-db.ts', 'src/http/routes/fixture.ts', /queries live in src\/domain/],
    ['http-imports-db-value.ts', 'src/http/routes/fixture.ts', /queries live in src\/domain/],
    ['imports-entry-point.ts', 'src/queue/fixture.ts', /Entry points are run/],
    ['web-imports-domain.ts', 'src/web/fixture.ts', /src\/web fetches and reads customer sites/],
    ['domain-imports-share.ts', 'src/domain/shares/fixture.ts', /imports none of them/],
    ['mcp-imports-db-value.ts', 'src/mcp/fixture.ts', /queries live in src\/domain/],
    ['share-imports-kysely.ts', 'src/share/fixture.ts', /src\/share renders/],
    ['share-imports-http.ts', 'src/share/fixture.ts', /src\/share renders/],
    ['logs-imports-db.ts', 'src/logs/fixture.ts', /src\/logs reads log lines/],
    [
      'domain-imports-up-a-tier.ts',
      'src/domain/sites/fixture.ts',
      /src\/domain\/sites \(tier: sites\) imports only lower tiers/,
    ],
    [
      'domain-imports-later-peer.ts',
      'src/domain/categories/fixture.ts',
      /no two folders import each other in a circle/,
    ],
    ['domain-imports-past-index.ts', 'src/domain/reports/fixture.ts', /through its index\.ts, never a file inside it/],
    ['http-imports-past-index.ts', 'src/http/routes/fixture.ts', /through its index\.ts, never a file inside it/],
    ['context-imports-domain.ts', 'src/context.ts', /import no src\/domain folder but common/],
    ['context-imports-jobs.ts', 'src/context.ts', /import no src\/domain folder but common, and not jobs\//],
    ['service-imports-domain.ts', 'src/rate-limiters.ts', /import no src\/domain folder but common/],
  ])('%s fails as %s', async (fixture, filePath, message) => {
    const messages = await lintAs(fixture, filePath);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(message);
  });

  it('finds the context loading the job table itself (an import() no-restricted-imports does not read)', async () => {
    const messages = await lintAs('context-loads-jobs.ts', 'src/context.ts', 'no-restricted-syntax');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/not jobs\/ \(the table is handed in/);
  });

  it('lets the context import the shared vocabulary and its own services', async () => {
    expect(await lintAs('context-imports-common.ts', 'src/context.ts')).toEqual([]);
    expect(await lintAs('context-imports-common.ts', 'src/context.ts', 'no-restricted-syntax')).toEqual([]);
  });

  it('lets HTTP import types from src/db', async () => {
    expect(await lintAs('allowed.ts', 'src/http/routes/fixture.ts')).toEqual([]);
  });

  it('lets a domain folder import lower tiers and earlier peers through their index.ts', async () => {
    expect(await lintAs('domain-imports-lower-tier.ts', 'src/domain/reports/fixture.ts')).toEqual([]);
  });

  it('places every src/domain folder in exactly one tier', async () => {
    const folders = (await readdir(path.resolve('src/domain'), { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    const placed = domainTiers.tiers.flatMap((t) => t.folders);
    expect([...placed].sort()).toEqual([...folders].sort());
    expect(new Set(placed).size).toBe(placed.length);
  });

  it('finds the domain itself clean of tier, entry and circle breaks', async () => {
    const results = await eslint.lintFiles(['src/domain', 'src/http', 'src/mcp', 'src/cli', 'jobs', 'src/context.ts']);
    const broken = results.flatMap((r) =>
      r.messages
        .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
        .map((m) => `${path.relative('.', r.filePath)}: ${m.message}`),
    );
    expect(broken).toEqual([]);
  }, 120_000);
});
