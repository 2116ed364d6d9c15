import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERSONAS_PER_SITE } from '../../src/domain/personas/personas.ts';
import { setOrgLimits } from '../../src/domain/orgs/orgs.ts';
import { createSite } from '../../src/domain/onboarding/new-site.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

let app: TestApp;
let ws: Org;

beforeAll(async () => {
  app = await startTestApp({ variant: 'A' });
  ws = await seedOrg(app.ctx);
  await setOrgLimits(app.ctx, ws.orgId, { sites: 100 });
});
afterAll(() => app.close());

let n = 0;
async function newSite(target: TestApp = app, org: Org = ws): Promise<number> {
  n++;
  return (
    await createSite(
      target.ctx,
      { orgId: org.orgId, userId: org.ownerId },
      { name: `Personas ${n}`, url: `personas-${org.orgId}-${n}.com` },
    )
  ).id;
}

const post = (path: string, body: unknown, key = ws.keys.member) => app.request('POST', path, { key, body });
const patch = (path: string, body: unknown, key = ws.keys.member) => app.request('PATCH', path, { key, body });

describe('personas (variant A)', () => {
  it('adds, lists with prompt counts, changes and removes a persona', async () => {
    const siteId = await newSite();
    const made = await post(`/projects/${siteId}/personas`, {
      name: ' IT manager ',
      context: ' I run IT for 200 people. ',
    });
    expect(made.status).toBe(200);
    const persona = made.body.persona;
    expect(persona).toEqual({
      id: expect.any(Number),
      name: 'IT manager',
      context: 'I run IT for 200 people.',
      promptCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const bare = await post(`/projects/${siteId}/personas`, { name: 'Analyst' });
    expect(bare.body.persona.context).toBe('');

    for (const text of ['Which MDM is best?', 'Which VPN is best?']) {
      expect((await post(`/projects/${siteId}/prompts`, { text, personaId: persona.id })).status).toBe(200);
    }
    const list = await app.request('GET', `/projects/${siteId}/personas`, { key: ws.keys.viewer });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.personas.map((p: { name: string; promptCount: number }) => [p.name, p.promptCount])).toEqual([
      ['Analyst', 0],
      ['IT manager', 2],
    ]);

    const changed = await patch(`/projects/${siteId}/personas/${persona.id}`, { context: 'I run IT for 500 people.' });
    expect(changed.body.persona).toMatchObject({
      name: 'IT manager',
      context: 'I run IT for 500 people.',
      promptCount: 2,
    });
    const renamed = await patch(`/projects/${siteId}/personas/${persona.id}`, { name: 'CIO' });
    expect(renamed.body.persona).toMatchObject({ name: 'CIO', context: 'I run IT for 500 people.' });

    const gone = await app.request('DELETE', `/projects/${siteId}/personas/${persona.id}`, { key: ws.keys.member });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ deleted: true, persona: { id: persona.id, name: 'CIO' }, promptsCleared: 2 });
    const prompts = await app.request('GET', `/projects/${siteId}/prompts`, { key: ws.keys.viewer });
    expect(prompts.body.prompts.map((p: { personaId: number | null }) => p.personaId)).toEqual([null, null]);
    expect(
      (await app.request('DELETE', `/projects/${siteId}/personas/${persona.id}`, { key: ws.keys.member })).status,
    ).toBe(404);
    expect((await patch(`/projects/${siteId}/personas/${persona.id}`, { name: 'X' })).status).toBe(404);
  });

  it('answers 422 for a name over 80 or context over 600 characters, or no name', async () => {
    const siteId = await newSite();
    const res = await post(`/projects/${siteId}/personas`, { name: 'n'.repeat(81), context: 'c'.repeat(601) });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual({
      name: 'name must be at most 80 characters',
      context: 'context must be at most 600 characters',
    });
    expect((await post(`/projects/${siteId}/personas`, { context: 'who' })).body.fields).toEqual({
      name: 'name must be a string',
    });
    const ok = await post(`/projects/${siteId}/personas`, { name: 'n'.repeat(80), context: 'c'.repeat(600) });
    expect(ok.status).toBe(200);
    expect((await patch(`/projects/${siteId}/personas/${ok.body.persona.id}`, { name: '' })).status).toBe(422);
  });

  it('answers 409 for a second persona with the same name, ignoring case', async () => {
    const siteId = await newSite();
    const first = await post(`/projects/${siteId}/personas`, { name: 'Buyer' });
    expect((await post(`/projects/${siteId}/personas`, { name: 'BUYER' })).status).toBe(409);
    const other = await post(`/projects/${siteId}/personas`, { name: 'Seller' });
    const clash = await patch(`/projects/${siteId}/personas/${other.body.persona.id}`, { name: 'buyer' });
    expect(clash.status).toBe(409);
    expect(clash.body.fields).toEqual({ name: 'already exists' });
    expect((await patch(`/projects/${siteId}/personas/${first.body.persona.id}`, { name: 'buyer' })).status).toBe(200);
  });

  it('keeps personas inside their site: another site’s persona id answers 404', async () => {
    const one = await newSite();
    const two = await newSite();
    const persona = await post(`/projects/${one}/personas`, { name: 'Buyer' });
    expect((await patch(`/projects/${two}/personas/${persona.body.persona.id}`, { name: 'Mine' })).status).toBe(404);
    expect(
      (await app.request('DELETE', `/projects/${two}/personas/${persona.body.persona.id}`, { key: ws.keys.member }))
        .status,
    ).toBe(404);
  });

  it('lets viewers read and refuses them changes (403)', async () => {
    const siteId = await newSite();
    expect((await app.request('GET', `/projects/${siteId}/personas`, { key: ws.keys.viewer })).status).toBe(200);
    expect((await post(`/projects/${siteId}/personas`, { name: 'Buyer' }, ws.keys.viewer)).status).toBe(403);
  });

  it(`holds at most ${PERSONAS_PER_SITE} personas per site, counted under the site lock: concurrent adds at the limit pass it once`, async () => {
    expect(PERSONAS_PER_SITE).toBe(100);
    const siteId = await newSite();
    await app.ctx.db
      .insertInto('personas')
      .values(Array.from({ length: PERSONAS_PER_SITE - 1 }, (_, i) => ({ siteId, name: `Persona ${i}`, context: '' })))
      .execute();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => post(`/projects/${siteId}/personas`, { name: `Late ${i}` })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    const refused = results.find((r) => r.status === 400);
    expect(refused?.body.error).toBe(
      `This project has ${PERSONAS_PER_SITE} personas, the most a project can have; remove some first`,
    );
    const count = await app.ctx.db
      .selectFrom('personas')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', siteId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(PERSONAS_PER_SITE);
  });

  it('pages the list: page and perPage (5 to 200, default 100), total counts every persona', async () => {
    const siteId = await newSite();
    for (const name of ['Ana', 'Ben', 'Cy', 'Dee', 'Eve', 'Fay', 'Gus'])
      expect((await post(`/projects/${siteId}/personas`, { name })).status).toBe(200);
    const path = `/projects/${siteId}/personas`;
    const all = await app.request('GET', path, { key: ws.keys.viewer });
    expect(all.body).toMatchObject({ total: 7, page: 1, perPage: 100 });
    expect(all.body.personas).toHaveLength(7);
    const second = await app.request('GET', `${path}?page=2&perPage=5`, { key: ws.keys.viewer });
    expect(second.body).toMatchObject({ total: 7, page: 2, perPage: 5 });
    expect(second.body.personas.map((p: { name: string }) => p.name)).toEqual(['Fay', 'Gus']);
    for (const bad of ['perPage=4', 'perPage=201', 'page=0'])
      expect((await app.request('GET', `${path}?${bad}`, { key: ws.keys.viewer })).status).toBe(422);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await app.request('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths['/projects/{id}/personas'])).toEqual(['get', 'post']);
    expect(doc.body.paths['/projects/{id}/personas/{personaId}'].patch['x-variant']).toBe('A');
  });
});

describe('a deployment serving variant B alone', () => {
  let appB: TestApp;
  let wsB: Org;
  beforeAll(async () => {
    appB = await startTestApp({ variant: 'B' });
    wsB = await seedOrg(appB.ctx);
  });
  afterAll(() => appB.close());

  it('answers 404 for the persona endpoints and 422 for personaId in prompt bodies', async () => {
    const siteId = await newSite(appB, wsB);
    expect((await appB.request('GET', `/projects/${siteId}/personas`, { key: wsB.keys.viewer })).status).toBe(404);
    expect(
      (await appB.request('POST', `/projects/${siteId}/personas`, { key: wsB.keys.member, body: { name: 'Buyer' } }))
        .status,
    ).toBe(404);
    const create = await appB.request('POST', `/projects/${siteId}/prompts`, {
      key: wsB.keys.member,
      body: { text: 'Which one?', personaId: null },
    });
    expect(create.status).toBe(422);
    expect(create.body.fields).toEqual({ personaId: 'personaId is not available on this deployment' });
    const ok = await appB.request('POST', `/projects/${siteId}/prompts`, {
      key: wsB.keys.member,
      body: { text: 'Which one?' },
    });
    expect(ok.status).toBe(200);
    const edit = await appB.request('PATCH', `/projects/${siteId}/prompts/${ok.body.prompt.id}`, {
      key: wsB.keys.member,
      body: { personaId: 1 },
    });
    expect(edit.status).toBe(422);
    const bulk = await appB.request('POST', `/projects/${siteId}/prompts/bulk`, {
      key: wsB.keys.member,
      body: { ids: [ok.body.prompt.id], personaId: null },
    });
    expect(bulk.status).toBe(422);
    const doc = await appB.request('GET', '/openapi.json');
    expect(doc.body.paths['/projects/{id}/personas']).toBeUndefined();
  });
});
