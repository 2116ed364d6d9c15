import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITE_EVENTS_MAX } from '../../src/domain/sites/events.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/** Site events (variant B): add, list, remove, validation, limits, and their absence in variant A. */

let app: TestApp;
let ws: Org;
let siteId: number;

const path = (p = '') => `/projects/${siteId}/events${p}`;
const add = (body: unknown, key = ws.keys.member) => app.request('POST', path(), { key, body });

beforeAll(async () => {
  app = await startTestApp({ variant: 'B' });
  ws = await seedOrg(app.ctx);
  const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Acme', url: 'acme.com' },
  });
  siteId = site.body.project.id;
});
afterAll(() => app.close());

describe('site events', () => {
  it('adds an event with its fields trimmed, a blank note as none', async () => {
    const res = await add({ title: '  Pricing relaunch ', date: '2026-11-02', type: 'site', note: '  ' });
    expect(res.status).toBe(200);
    expect(res.body.event).toEqual({
      id: expect.any(Number),
      title: 'Pricing relaunch',
      date: '2026-11-02',
      type: 'site',
      note: null,
      createdAt: expect.any(String),
    });
    const noted = await add({
      title: 'GPT-5 update',
      date: '2026-10-15',
      type: 'model',
      note: 'New default model in ChatGPT',
    });
    expect(noted.body.event).toMatchObject({ type: 'model', note: 'New default model in ChatGPT' });
  });

  it('lists them oldest first, narrowed by from and to (inclusive), in pages', async () => {
    await add({ title: 'Black Friday', date: '2026-11-27', type: 'campaign' });
    const all = await app.request('GET', path(), { key: ws.keys.viewer });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, page: 1, perPage: 50 });
    expect(all.body.events.map((e: { date: string }) => e.date)).toEqual(['2026-10-15', '2026-11-02', '2026-11-27']);
    const november = await app.request('GET', path('?from=2026-11-02&to=2026-11-27'), { key: ws.keys.viewer });
    expect(november.body.events.map((e: { title: string }) => e.title)).toEqual(['Pricing relaunch', 'Black Friday']);
    const second = await app.request('GET', path('?perPage=5&page=2'), { key: ws.keys.viewer });
    expect(second.body).toMatchObject({ events: [], total: 3, page: 2, perPage: 5 });
  });

  it('validates with 422 and field messages', async () => {
    const res = await add({ title: ' ', date: '2026-02-30', type: 'launch', note: 'x'.repeat(1001) });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual({
      title: 'title must not be empty',
      date: 'date is not a calendar date',
      type: 'type must be one of site, model, campaign, other',
      note: 'note must be at most 1000 characters',
    });
    expect((await add({ date: '2026-11-02', type: 'site' })).body.fields).toHaveProperty('title');
    expect((await add({ title: 'x'.repeat(121), date: '2026-11-02', type: 'site' })).body.fields).toEqual({
      title: 'title must be at most 120 characters',
    });
    const range = await app.request('GET', path('?from=2026-12-01&to=2026-11-01'), { key: ws.keys.viewer });
    expect(range.status).toBe(422);
    expect(range.body.fields).toEqual({ from: 'from must not be after to' });
    expect((await app.request('GET', path('?from=yesterday'), { key: ws.keys.viewer })).status).toBe(422);
    // Other malformed input answers 4xx with the error envelope, never 500.
    for (const res of [
      await add([{ title: 'x', date: '2026-11-02', type: 'site' }]),
      await add('not json'),
      await add({ title: 'x\u0000y', date: '2026-11-02', type: 'site' }),
      await app.request('GET', path('?perPage=1000'), { key: ws.keys.viewer }),
      await app.request('DELETE', path('/abc'), { key: ws.keys.member }),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(Object.keys(res.body).sort()).toEqual(['error', 'fields']);
      expect(typeof res.body.error).toBe('string');
    }
    expect((await app.request('GET', path(), { key: ws.keys.viewer })).body.total).toBe(3);
  });

  it('removes an event once; another site’s event is 404', async () => {
    const created = await add({ title: 'Gone soon', date: '2026-11-05', type: 'other' });
    const id = created.body.event.id;
    const res = await app.request('DELETE', path(`/${id}`), { key: ws.keys.member });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true, event: expect.objectContaining({ id, title: 'Gone soon' }) });
    expect((await app.request('DELETE', path(`/${id}`), { key: ws.keys.member })).status).toBe(404);

    const other = await seedOrg(app.ctx);
    const site = await app.request('POST', `/orgs/${other.orgId}/projects`, {
      key: other.keys.admin,
      body: { name: 'Other', url: 'other.com' },
    });
    const theirs = await app.request('POST', `/projects/${site.body.project.id}/events`, {
      key: other.keys.member,
      body: { title: 'Theirs', date: '2026-11-05', type: 'site' },
    });
    expect((await app.request('DELETE', path(`/${theirs.body.event.id}`), { key: ws.keys.member })).status).toBe(404);
  });

  it('viewers read but cannot add or remove', async () => {
    expect((await add({ title: 'Nope', date: '2026-11-05', type: 'site' }, ws.keys.viewer)).status).toBe(403);
  });

  it(`stops at ${SITE_EVENTS_MAX} events per site with 400 naming the limit`, async () => {
    const { total } = (await app.request('GET', path(), { key: ws.keys.viewer })).body;
    await app.ctx.db
      .insertInto('siteEvents')
      .values(
        Array.from({ length: SITE_EVENTS_MAX - total }, (_, i) => ({
          siteId,
          title: `Filler ${i}`,
          date: '2026-01-01',
          type: 'other' as const,
        })),
      )
      .execute();
    const res = await add({ title: 'One too many', date: '2026-11-05', type: 'site' });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(String(SITE_EVENTS_MAX));
  });
});

describe('variant A alone', () => {
  it('has no event endpoints and no events in trends', async () => {
    const a = await startTestApp({ variant: 'A' });
    try {
      const w = await seedOrg(a.ctx);
      const site = await a.request('POST', `/orgs/${w.orgId}/projects`, {
        key: w.keys.admin,
        body: { name: 'Acme', url: 'acme.com' },
      });
      const id = site.body.project.id;
      expect((await a.request('GET', `/projects/${id}/events`, { key: w.keys.viewer })).status).toBe(404);
      expect(
        (
          await a.request('POST', `/projects/${id}/events`, {
            key: w.keys.member,
            body: { title: 'x', date: '2026-11-02', type: 'site' },
          })
        ).status,
      ).toBe(404);
      expect((await a.request('GET', `/projects/${id}/trends`, { key: w.keys.viewer })).body).not.toHaveProperty(
        'events',
      );
    } finally {
      await a.close();
    }
  });
});
