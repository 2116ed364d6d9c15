import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORIES_PER_SITE } from '../../src/domain/categories/categories.ts';
import { setOrgLimits } from '../../src/domain/orgs/orgs.ts';
import { createSite } from '../../src/domain/onboarding/new-site.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

let app: TestApp;
let ws: Org;

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
  await setOrgLimits(app.ctx, ws.orgId, { sites: 100 });
});
afterAll(() => app.close());

let n = 0;
async function newSite(): Promise<number> {
  n++;
  return (
    await createSite(app.ctx, { orgId: ws.orgId, userId: ws.ownerId }, { name: `Cats ${n}`, url: `cats-${n}.com` })
  ).id;
}

const post = (path: string, body: unknown, key = ws.keys.member) => app.request('POST', path, { key, body });
const categories = async (siteId: number) =>
  (
    (await app.request('GET', `/projects/${siteId}/categories`, { key: ws.keys.viewer })).body.categories as {
      name: string;
      promptCount: number;
    }[]
  ).map((c) => [c.name, c.promptCount]);
const promptCategories = async (siteId: number) =>
  (
    (await app.request('GET', `/projects/${siteId}/prompts?sort=text`, { key: ws.keys.viewer })).body.prompts as {
      text: string;
      categories: string[];
    }[]
  ).map((p) => [p.text, p.categories]);

/** Three prompts: P1 in A and B, P2 in B, P3 in C. */
async function seeded(): Promise<number> {
  const siteId = await newSite();
  for (const [text, cats] of [
    ['P1 question?', ['A', 'B']],
    ['P2 question?', ['B']],
    ['P3 question?', ['C']],
  ] as const) {
    const res = await post(`/projects/${siteId}/prompts`, { text, categories: cats });
    expect(res.status).toBe(200);
  }
  return siteId;
}

describe('categories', () => {
  it('lists categories alphabetically with prompt counts, empty ones included', async () => {
    const siteId = await seeded();
    const made = await post(`/projects/${siteId}/categories`, { name: '  Empty one ' });
    expect(made.status).toBe(200);
    expect(made.body.category).toEqual({
      id: expect.any(Number),
      name: 'Empty one',
      promptCount: 0,
      createdAt: expect.any(String),
    });
    const res = await app.request('GET', `/projects/${siteId}/categories`, { key: ws.keys.viewer });
    expect(res.body.total).toBe(4);
    expect(await categories(siteId)).toEqual([
      ['A', 1],
      ['B', 2],
      ['C', 1],
      ['Empty one', 0],
    ]);
  });

  it('answers 409 for a name that exists ignoring case, and 422 for a bad name', async () => {
    const siteId = await seeded();
    const dup = await post(`/projects/${siteId}/categories`, { name: 'b' });
    expect(dup.status).toBe(409);
    expect(dup.body.fields).toEqual({ name: 'already exists' });
    for (const name of ['', 'x'.repeat(101), 'a;b', 'a|b', 7]) {
      const res = await post(`/projects/${siteId}/categories`, { name });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.fields)).toEqual(['name']);
    }
    expect((await post(`/projects/${siteId}/categories`, { name: 'New' }, ws.keys.viewer)).status).toBe(403);
  });

  it('renames one category, keeping its prompts; a change of case is a rename too', async () => {
    const siteId = await seeded();
    const res = await post(`/projects/${siteId}/categories/merge`, { names: ['b'], into: 'Beta' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      category: { id: expect.any(Number), name: 'Beta', promptCount: 2, createdAt: expect.any(String) },
      removed: [],
      prompts: 2,
    });
    const recased = await post(`/projects/${siteId}/categories/merge`, { names: ['Beta'], into: 'BETA' });
    expect(recased.body.category).toMatchObject({ id: res.body.category.id, name: 'BETA' });
    expect(await promptCategories(siteId)).toEqual([
      ['P1 question?', ['A', 'BETA']],
      ['P2 question?', ['BETA']],
      ['P3 question?', ['C']],
    ]);
  });

  it('merges several into a new name; a prompt in two of them ends up in it once', async () => {
    const siteId = await seeded();
    const res = await post(`/projects/${siteId}/categories/merge`, { names: ['A', 'B', 'a'], into: 'AB' });
    expect(res.body).toEqual({
      category: expect.objectContaining({ name: 'AB', promptCount: 2 }),
      removed: ['B'],
      prompts: 2,
    });
    expect(await categories(siteId)).toEqual([
      ['AB', 2],
      ['C', 1],
    ]);
    expect(await promptCategories(siteId)).toEqual([
      ['P1 question?', ['AB']],
      ['P2 question?', ['AB']],
      ['P3 question?', ['C']],
    ]);
  });

  it('merges into an existing category that is not among the names', async () => {
    const siteId = await seeded();
    const res = await post(`/projects/${siteId}/categories/merge`, { names: ['A', 'C'], into: 'b' });
    expect(res.body).toEqual({
      category: expect.objectContaining({ name: 'b', promptCount: 3 }),
      removed: ['A', 'C'],
      prompts: 2,
    });
    expect(await categories(siteId)).toEqual([['b', 3]]);
  });

  it('removes categories from their prompts and deletes them when into is empty', async () => {
    const siteId = await seeded();
    const res = await post(`/projects/${siteId}/categories/merge`, { names: ['B', 'C'], into: '' });
    expect(res.body).toEqual({ category: null, removed: ['B', 'C'], prompts: 3 });
    expect(await categories(siteId)).toEqual([['A', 1]]);
    expect(await promptCategories(siteId)).toEqual([
      ['P1 question?', ['A']],
      ['P2 question?', []],
      ['P3 question?', []],
    ]);
    const viaNull = await post(`/projects/${siteId}/categories/merge`, { names: ['A'], into: null });
    expect(viaNull.body.removed).toEqual(['A']);
  });

  it('answers 422 naming unknown categories and changes nothing; into is required', async () => {
    const siteId = await seeded();
    const res = await post(`/projects/${siteId}/categories/merge`, { names: ['A', 'Nope', 'B', 'Nada'], into: 'Z' });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual({ 'names.1': 'no category named Nope', 'names.3': 'no category named Nada' });
    expect(await categories(siteId)).toEqual([
      ['A', 1],
      ['B', 2],
      ['C', 1],
    ]);
    const missing = await post(`/projects/${siteId}/categories/merge`, { names: ['A'] });
    expect(missing.body.fields).toEqual({ into: expect.stringMatching(/into is required/) });
    const empty = await post(`/projects/${siteId}/categories/merge`, { names: [], into: 'Z' });
    expect(empty.body.fields).toEqual({ names: 'names needs at least one category' });
    const bad = await post(`/projects/${siteId}/categories/merge`, { names: ['A'], into: 'x;y' });
    expect(bad.body.fields).toEqual({ into: expect.stringMatching(/cannot contain/) });
  });

  it('keeps categories of other sites apart', async () => {
    const one = await seeded();
    const two = await seeded();
    await post(`/projects/${one}/categories/merge`, { names: ['A'], into: '' });
    expect(await categories(two)).toEqual([
      ['A', 1],
      ['B', 2],
      ['C', 1],
    ]);
  });
});

describe(`at most ${CATEGORIES_PER_SITE} categories per site, however they are made`, () => {
  const limitMessage = new RegExp(`may have at most ${CATEGORIES_PER_SITE}`);
  /** A site with `count` categories (made directly) and one prompt. */
  async function nearlyFull(count: number): Promise<{ siteId: number; promptId: number }> {
    const siteId = await newSite();
    await app.ctx.db
      .insertInto('categories')
      .values(Array.from({ length: count }, (_, i) => ({ siteId, name: `Cat ${String(i).padStart(3, '0')}` })))
      .execute();
    const prompt = await post(`/projects/${siteId}/prompts`, { text: 'Which CRM is best?', categories: ['Cat 000'] });
    expect(prompt.status).toBe(200);
    return { siteId, promptId: prompt.body.prompt.id };
  }
  const countOf = async (siteId: number) =>
    Number(
      (
        await app.ctx.db
          .selectFrom('categories')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('siteId', '=', siteId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('refuses with 400 past the limit through every way of making one; existing names still work', async () => {
    expect(CATEGORIES_PER_SITE).toBe(500);
    const { siteId, promptId } = await nearlyFull(CATEGORIES_PER_SITE - 1);
    const tooMany = await app.request('POST', `/projects/${siteId}/prompts/import`, {
      key: ws.keys.member,
      body: { contents: 'text,categories\nWhich tool is best?,New A;New B\n' },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(limitMessage);
    const dry = await app.request('POST', `/projects/${siteId}/prompts/import`, {
      key: ws.keys.member,
      body: { contents: 'text,categories\nWhich tool is best?,New A;New B\n', dryRun: true },
    });
    expect(dry.status).toBe(400);
    expect((await post(`/projects/${siteId}/categories`, { name: 'The last one' })).status).toBe(200);
    expect(await countOf(siteId)).toBe(CATEGORIES_PER_SITE);
    const refusals = [
      await post(`/projects/${siteId}/categories`, { name: 'One more' }),
      await post(`/projects/${siteId}/prompts`, { text: 'Which ERP is best?', categories: ['Brand new'] }),
      await app.request('PATCH', `/projects/${siteId}/prompts/${promptId}`, {
        key: ws.keys.member,
        body: { categories: ['Brand new'] },
      }),
      await post(`/projects/${siteId}/prompts/bulk`, { ids: [promptId], category: 'Brand new' }),
      await app.request('POST', `/projects/${siteId}/prompts/import`, {
        key: ws.keys.member,
        body: { contents: 'text,categories\nWhich tool is best?,Brand new\n' },
      }),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(limitMessage);
    }
    expect(await countOf(siteId)).toBe(CATEGORIES_PER_SITE);
    // Names the site has are no new categories: prompts, bulk edits, imports and merges with them still work.
    expect(
      (
        await post(`/projects/${siteId}/prompts`, {
          text: 'Which ERP is best?',
          categories: ['cat 001', 'The last one'],
        })
      ).status,
    ).toBe(200);
    expect((await post(`/projects/${siteId}/prompts/bulk`, { ids: [promptId], category: 'Cat 002' })).status).toBe(200);
    expect((await post(`/projects/${siteId}/categories/merge`, { names: ['Cat 003'], into: 'Renamed' })).status).toBe(
      200,
    );
    expect((await post(`/projects/${siteId}/categories`, { name: 'cat 004' })).status).toBe(409);
  });

  it('counts concurrent adds at the limit one after the other: only one passes', async () => {
    const { siteId } = await nearlyFull(CATEGORIES_PER_SITE - 1);
    const results = await Promise.all([
      ...Array.from({ length: 3 }, (_, i) => post(`/projects/${siteId}/categories`, { name: `Racing ${i}` })),
      ...Array.from({ length: 3 }, (_, i) =>
        post(`/projects/${siteId}/prompts`, {
          text: `Which racing tool ${i} is best?`,
          categories: [`Racing prompt ${i}`],
        }),
      ),
    ]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(5);
    expect(await countOf(siteId)).toBe(CATEGORIES_PER_SITE);
  });

  it('pages the list: page and perPage (5 to 200, default 200), total counts every category', async () => {
    const { siteId } = await nearlyFull(250);
    const path = `/projects/${siteId}/categories`;
    const first = await app.request('GET', path, { key: ws.keys.viewer });
    expect(first.body).toMatchObject({ total: 250, page: 1, perPage: 200 });
    expect(first.body.categories).toHaveLength(200);
    const last = await app.request('GET', `${path}?page=2`, { key: ws.keys.viewer });
    expect(last.body.categories.map((c: { name: string }) => c.name)).toEqual(
      Array.from({ length: 50 }, (_, i) => `Cat ${200 + i}`),
    );
    const small = await app.request('GET', `${path}?page=3&perPage=5`, { key: ws.keys.viewer });
    expect(small.body).toMatchObject({ total: 250, page: 3, perPage: 5 });
    expect(small.body.categories.map((c: { name: string }) => c.name)).toEqual([
      'Cat 010',
      'Cat 011',
      'Cat 012',
      'Cat 013',
      'Cat 014',
    ]);
    expect((await app.request('GET', `${path}?perPage=201`, { key: ws.keys.viewer })).status).toBe(422);
  });
});
