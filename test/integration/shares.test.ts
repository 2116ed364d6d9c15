import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOrgBranding } from '../../src/domain/orgs/orgs.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { addAcmeSite, seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * Share links (variant A): create, list, revoke through the API, and the
 * public page they open: HTML without a key, branded, only the site's report,
 * escaped, with its security headers; a 404 page for anything that opens
 * nothing, however odd the token.
 */

const BASE = 'https://reports.example.com';
/** Written into every seeded answer: the page must never show an answer's text. */
const ANSWER_MARK = 'ANSWER-BODY-MARK';

let app: TestApp;
let ws: Org;
let siteId: number;
let quietSiteId: number;

const sharesPath = (site = siteId, rest = '') => `/projects/${site}/shares${rest}`;
const create = (body: unknown = {}, key = ws.keys.admin, site = siteId) =>
  app.request('POST', sharesPath(site), { key, body });
const tokenOf = (url: string) => url.slice(`${BASE}/share/`.length);
const open = (token: string, query = '', headers: Record<string, string> = {}) =>
  app.request('GET', `/share/${token}${query}`, { headers });

beforeAll(async () => {
  app = await startTestApp({ env: { PUBLIC_BASE_URL: `${BASE}/` } });
  ws = await seedOrg(app.ctx, { name: 'Workspace Secret Name' });
  siteId = (await addAcmeSite(app, ws)).id;
  const quiet = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Quietly Other', url: 'quiet-other.io' },
  });
  quietSiteId = quiet.body.project.id;
  // Two weeks: the brand is named more often in the second; a prompt with markup in its text is won.
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    {
      prompt: 'Best CRM for startups?',
      provider: 'openai',
      askedAt: '2026-11-03T10:00:00Z',
      text: `Globex leads. ${ANSWER_MARK}`,
      citations: [{ url: 'https://reddit.com/r/crm', title: 'r' }],
    },
    {
      prompt: 'Is <b>Acme</b> & "Globex" <script>alert(1)</script> good?',
      provider: 'openai',
      askedAt: '2026-11-03T10:00:00Z',
      text: `Initech only. ${ANSWER_MARK}`,
    },
  ]);
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    {
      prompt: 'Best CRM for startups?',
      provider: 'openai',
      askedAt: '2026-11-10T10:00:00Z',
      text: `Acme and Globex. ${ANSWER_MARK}`,
      citations: [{ url: 'https://acme.com/pricing', title: 'p' }],
    },
    {
      prompt: 'Is <b>Acme</b> & "Globex" <script>alert(1)</script> good?',
      provider: 'anthropic',
      askedAt: '2026-11-10T10:00:00Z',
      text: `Acme is good. ${ANSWER_MARK}`,
    },
    {
      prompt: 'Is <b>Acme</b> & "Globex" <script>alert(1)</script> good?',
      provider: 'openai',
      askedAt: '2026-11-10T10:00:00Z',
      text: `Acme, surely. ${ANSWER_MARK}`,
    },
  ]);
  await seedAnswers(app.ctx, ws.orgId, quietSiteId, [
    { prompt: 'Quiet question?', provider: 'openai', askedAt: '2026-11-10T10:00:00Z', text: 'Quietly Other is named.' },
  ]);
});
afterAll(() => app.close());

describe('share links', () => {
  it('creates a link with a label; the answer carries its url built from PUBLIC_BASE_URL', async () => {
    const res = await create({ label: '  Board deck  ' });
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(/^https:\/\/reports\.example\.com\/share\/[A-Za-z0-9_-]{43}$/);
    expect(res.body.share).toEqual({
      id: expect.any(Number),
      label: 'Board deck',
      prefix: tokenOf(res.body.url).slice(0, 6),
      state: 'active',
      createdBy: { id: ws.users.admin, name: 'admin person' },
      createdAt: expect.any(String),
      revokedAt: null,
      url: res.body.url,
    });
    const unlabelled = await create();
    expect(unlabelled.body.share.label).toBeNull();
    expect((await create({ label: '' })).body.share.label).toBeNull();
  });

  it('stores only the token’s SHA-256, never the token', async () => {
    const { body } = await create({ label: 'hash check' });
    const token = tokenOf(body.url);
    const row = await app.ctx.db
      .selectFrom('shareLinks')
      .selectAll()
      .where('id', '=', body.share.id)
      .executeTakeFirstOrThrow();
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);
    const tokens = new Set<string>();
    for (let i = 0; i < 5; i++) tokens.add(tokenOf((await create()).body.url));
    expect(tokens.size).toBe(5);
  });

  it('lists the site’s links newest first, without their urls', async () => {
    const res = await app.request('GET', sharesPath(), { key: ws.keys.admin });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(res.body.shares.length);
    expect(res.body.shares[0].id).toBeGreaterThan(res.body.shares[1].id);
    expect(res.text).not.toMatch(/\/share\//);
    expect(res.body.shares[0]).not.toHaveProperty('url');
    expect((await app.request('GET', sharesPath(quietSiteId), { key: ws.keys.admin })).body).toEqual({
      shares: [],
      total: 0,
      active: 0,
      page: 1,
      perPage: 100,
    });
  });

  it('pages the list (revoked links stay listed, so it grows): total and active count every link', async () => {
    const all = (await app.request('GET', sharesPath(), { key: ws.keys.admin })).body;
    expect(all.total).toBeGreaterThan(5);
    const first = (await app.request('GET', `${sharesPath()}?perPage=5`, { key: ws.keys.admin })).body;
    const second = (await app.request('GET', `${sharesPath()}?perPage=5&page=2`, { key: ws.keys.admin })).body;
    expect(first).toMatchObject({ total: all.total, active: all.active, page: 1, perPage: 5 });
    expect(first.shares).toHaveLength(5);
    expect([...first.shares, ...second.shares].map((s: { id: number }) => s.id)).toEqual(
      all.shares.slice(0, 10).map((s: { id: number }) => s.id),
    );
    expect((await app.request('GET', `${sharesPath()}?perPage=500`, { key: ws.keys.admin })).status).toBe(422);
  });

  it('validates the label with 422', async () => {
    expect((await create({ label: 'x'.repeat(101) })).body.fields).toEqual({
      label: 'label must be at most 100 characters',
    });
    expect((await create({ label: 42 })).status).toBe(422);
    expect((await create({ label: 'a\u0000b' })).status).toBe(422);
    expect((await app.request('POST', sharesPath(), { key: ws.keys.admin, body: '{"label":' })).status).toBe(400);
  });

  it('is for admins: viewers and members get 403', async () => {
    for (const key of [ws.keys.viewer, ws.keys.member]) {
      expect((await create({}, key)).status).toBe(403);
      expect((await app.request('GET', sharesPath(), { key })).status).toBe(403);
    }
  });

  it('revokes for good: the page answers 404, the link is listed as revoked, revoking again changes nothing', async () => {
    const { body } = await create({ label: 'to revoke' });
    const token = tokenOf(body.url);
    expect((await open(token)).status).toBe(200);
    const res = await app.request('DELETE', sharesPath(siteId, `/${body.share.id}`), { key: ws.keys.admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      revoked: true,
      share: { id: body.share.id, state: 'revoked', revokedAt: expect.any(String) },
    });
    const gone = await open(token);
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(gone.text).toContain('This report link does not work');
    const again = await app.request('DELETE', sharesPath(siteId, `/${body.share.id}`), { key: ws.keys.admin });
    expect(again.body.share.revokedAt).toBe(res.body.share.revokedAt);
    const listed = (await app.request('GET', sharesPath(), { key: ws.keys.admin })).body.shares.find(
      (s: { id: number }) => s.id === body.share.id,
    );
    expect(listed).toMatchObject({ state: 'revoked', revokedAt: res.body.share.revokedAt });
    expect((await open(token)).status).toBe(404);
    expect((await app.request('DELETE', sharesPath(siteId, '/999999'), { key: ws.keys.admin })).status).toBe(404);
    // Another site's link is not this site's to revoke.
    expect(
      (await app.request('DELETE', sharesPath(quietSiteId, `/${body.share.id}`), { key: ws.keys.admin })).status,
    ).toBe(404);
  });
});

describe('the shared page', () => {
  let token: string;
  beforeAll(async () => {
    token = tokenOf((await create({ label: 'page' })).body.url);
  });

  it('is HTML without a key, with noindex, a strict CSP, no referrer and revalidated caching', async () => {
    const res = await open(token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('x-robots-tag')).toContain('noindex');
    expect(res.text).toMatch(/<meta name="robots" content="noindex, nofollow" ?\/?>/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).not.toContain('unsafe');
    expect(csp).not.toContain('script-src');
    // The hash allows exactly the page's own stylesheet.
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.text)?.[1] ?? '';
    expect(csp).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const etag = res.headers.get('etag') as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await open(token, '', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('shows the report: charts, ranking, assistants, sources, what changed, a period switcher', async () => {
    const { text } = await open(token);
    expect(text).toContain('data-chart="visibility"');
    expect(text).toContain('data-chart="shareOfVoice"');
    expect(text).toMatch(/<path class="line" d="M[\d. L]+"/);
    expect(text).toContain('data-section="ranking"');
    expect(text).toMatch(/<tr class="brand">\s*<td>\d<\/td>\s*<td>Acme/);
    expect(text).toContain('Globex');
    expect(text).toContain('data-provider="openai"');
    expect(text).toContain('data-provider="anthropic"');
    expect(text).toContain('<td>acme.com</td>');
    expect(text).toContain('data-changes="won"');
    // Every share with its 95% interval, and changes within their noise said so.
    expect(text).toMatch(/data-interval="visibility">95% range \d+\.\d–\d+\.\d%/);
    expect(text).toMatch(/data-interval="shareOfVoice">95% range \d+\.\d–\d+\.\d%/);
    expect(text).toMatch(/<tr data-provider="openai">[\s\S]*?<span class="muted">\(\d+\.\d–\d+\.\d%\)<\/span>/);
    // The ranking's visibility and share of voice, each assistant's share of voice, and each source's share naming the brand carry theirs too.
    expect(text).toMatch(/data-interval="ranking-visibility-1">\(\d+\.\d–\d+\.\d%\)/);
    expect(text).toMatch(/data-interval="ranking-shareOfVoice-1">\(\d+\.\d–\d+\.\d%\)/);
    expect(text).toMatch(/data-interval="assistant-shareOfVoice-openai">\(\d+\.\d–\d+\.\d%\)/);
    expect(text).toMatch(/data-interval="source-namesBrand-acme.com">\(\d+\.\d–\d+\.\d%\)/);
    // The charts draw each period's 95% range as a band around the line.
    expect(text).toMatch(/<path class="band" data-band="visibility" d="M[\d. LZ]+"/);
    expect(text).toMatch(/<path class="band" data-band="shareOfVoice" d="M[\d. LZ]+"/);
    expect(text).toContain('data-start="2026-11-09"');
    for (const p of ['day', 'week', 'month', 'quarter']) expect(text).toContain(`href="?period=${p}"`);
    expect(text).toContain('href="?period=week&amp;start=2026-11-02"');
    expect(text).toMatch(/<option value="2026-11-02" *>/);
  });

  it('escapes every customer string', async () => {
    const { text } = await open(token);
    expect(text).not.toContain('<script');
    expect(text).not.toContain('<b>Acme</b>');
    expect(text).toContain(
      'Is &lt;b&gt;Acme&lt;/b&gt; &amp; &quot;Globex&quot; &lt;script&gt;alert(1)&lt;/script&gt; good?',
    );
  });

  it('shows only that site’s report: no answer text, no other site, no workspace data', async () => {
    const { text } = await open(token);
    expect(text).not.toContain(ANSWER_MARK);
    expect(text).not.toContain('Quietly Other');
    expect(text).not.toContain('quiet-other.io');
    expect(text).not.toContain('@example.com');
    expect(text).not.toMatch(/balance|\$\d/i);
  });

  it('is branded with reportName and reportLogo, else the workspace name', async () => {
    expect((await open(token)).text).toContain('<h1>Workspace Secret Name</h1>');
    await setOrgBranding(app.ctx, ws.orgId, {
      reportName: 'Acme & Partners <Agency>',
      reportLogo: 'https://cdn.example.org/logo.png',
    });
    const res = await open(token);
    expect(res.text).toContain('<h1>Acme &amp; Partners &lt;Agency&gt;</h1>');
    expect(res.text).toContain('<img src="https://cdn.example.org/logo.png"');
    expect(res.headers.get('content-security-policy')).toContain('img-src https://cdn.example.org;');
    await setOrgBranding(app.ctx, ws.orgId, { reportLogo: 'javascript:alert(1)' });
    const odd = await open(token);
    expect(odd.text).not.toContain('javascript:');
    expect(odd.headers.get('content-security-policy')).toContain("img-src 'none'");
    await setOrgBranding(app.ctx, ws.orgId, { reportName: null, reportLogo: null });
  });

  it('opens any period; a mangled period or start shows the default', async () => {
    const month = await open(token, '?period=month');
    expect(month.text).toContain('data-period="month" data-start="2026-11-01"');
    expect(month.text).toMatch(/href="\?period=month" +aria-current="page"/);
    const earlier = await open(token, '?period=week&start=2026-11-04');
    expect(earlier.text).toContain('data-start="2026-11-02"');
    for (const q of [
      '?period=fortnight',
      '?period=week&start=2026-02-30',
      '?period=week&period=month',
      `?start=${'9'.repeat(5000)}`,
    ]) {
      const res = await open(token, q);
      expect(res.status, q).toBe(200);
      expect(res.text).toContain('data-period="week"');
    }
  });

  it('says so before the first answers', async () => {
    const quiet = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Fresh', url: 'fresh-site.io' },
    });
    const link = await create({}, ws.keys.admin, quiet.body.project.id);
    const res = await open(tokenOf(link.body.url));
    expect(res.status).toBe(200);
    expect(res.text).toContain('No answers yet');
  });

  it('answers a 404 page, never a 5xx, for tokens that open nothing', async () => {
    const odd = [
      'A'.repeat(43),
      'x'.repeat(10 * 1024),
      '%FF%FE%FD',
      '%00',
      '%C0%AF',
      'abc%',
      '%E2%82%AC'.repeat(20),
      encodeURIComponent('<script>alert(1)</script>'),
      `${token.slice(0, 42)}!`,
      `${token}x`,
      '..%2F..%2Fetc%2Fpasswd',
    ];
    for (const t of odd) {
      const res = await open(t);
      expect(res.status, t.slice(0, 40)).toBe(404);
      expect(res.headers.get('content-type'), t.slice(0, 40)).toBe('text/html; charset=utf-8');
      expect(res.text).not.toContain('<script>');
      expect(res.headers.get('x-robots-tag')).toContain('noindex');
    }
  });

  it('is in the OpenAPI document with the share endpoints', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/projects/{id}/shares', '/projects/{id}/shares/{shareId}', '/share/{token}']),
    );
    expect(doc.paths['/projects/{id}/shares'].post['x-variant']).toBe('A');
    expect(doc.paths['/share/{token}'].get.security).toEqual([]);
    expect(doc.paths['/share/{token}'].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      'token',
      'period',
      'start',
    ]);
  });
});

describe('a deployment serving variant B alone', () => {
  let appB: TestApp;
  beforeAll(async () => {
    appB = await startTestApp({ variant: 'B' });
  });
  afterAll(() => appB.close());

  it('has no share links and no shared page', async () => {
    const wsB = await seedOrg(appB.ctx);
    const site = await appB.request('POST', `/orgs/${wsB.orgId}/projects`, {
      key: wsB.keys.admin,
      body: { name: 'Acme', url: 'acme.com' },
    });
    expect(
      (await appB.request('POST', `/projects/${site.body.project.id}/shares`, { key: wsB.keys.admin, body: {} }))
        .status,
    ).toBe(404);
    expect((await appB.request('GET', `/share/${'A'.repeat(43)}`)).status).toBe(404);
    const doc = (await appB.request('GET', '/openapi.json')).body;
    expect(doc.paths['/share/{token}']).toBeUndefined();
  });
});
