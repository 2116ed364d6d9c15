import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layers of docs/architecture.md are kept by `npm run lint`: each
 * fixture breaks one rule and is linted as if it lived in the layer it
 * breaks, and must fail with no-restricted-imports.
 */
const eslint = new ESLint({ cwd: path.resolve('.') });

async function lintAs(fixture: string, filePath: string) {
  const code = await readFile(path.resolve('test/lint/fixtures', fixture), 'utf8');
  const [result] = await eslint.lintText(code, { filePath: path.resolve(filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
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
  ])('%s fails as %s', async (fixture, filePath, message) => {
    const messages = await lintAs(fixture, filePath);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(message);
  });

  it('lets HTTP import types from src/db', async () => {
    expect(await lintAs('allowed.ts', 'src/http/routes/fixture.ts')).toEqual([]);
  });
});
