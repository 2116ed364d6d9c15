import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSite } from '../../src/domain/onboarding/new-site.ts';
import { createMetrics } from '../../src/http/prometheus.ts';
import type { Route } from '../../src/http/route.ts';
import { allRoutes } from '../../src/http/routes/index.ts';
import { responseProblem, startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * No input gives a 5xx: property-based requests against every route of the
 * table, with NUL and lone surrogates in every string, huge, negative,
 * fractional and non-numeric values in every number and id, arrays of
 * 100,000 items, deep nesting, odd paths and wrong methods. Every answer
 * must be 2xx, or 4xx with the error envelope. FUZZ_RUNS (default 10,000
 * requests in all) sets the size; FUZZ_SEED replays a run.
 */

const TOTAL = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 1_000_000;
const PARALLEL = 8;

let app: TestApp;
let ws: Org;
let ids: Record<string, number>;
let failures: string[] = [];
let sent = 0;

const routes: Route[] = allRoutes(createMetrics()).filter((r) => r.path !== '/metrics' && r.path !== '/openapi.json');

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx, { balanceUsd: 5, plan: 'enterprise' });
  const site = await createSite(
    app.ctx,
    { orgId: ws.orgId, userId: ws.ownerId },
    { name: 'Fuzz', url: 'fuzz.com', competitors: [{ name: 'Rival' }] },
  );
  ids = { orgId: ws.orgId, id: site.id, competitorId: site.competitors[0]?.id ?? 1 };
}, 60_000);
afterAll(() => app?.close());

const weirdString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '',
    ' ',
    '%00',
    '../../etc/passwd',
    '<script>',
    "'; DROP TABLE sites; --",
    'x'.repeat(5000),
  ),
);
const weirdNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.constantFrom(-1, 0, 1.5, 2 ** 31, 2 ** 31 - 1, 2 ** 53, -(2 ** 53), 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2),
);
const leaf = fc.oneof(weirdString, weirdNumber, fc.boolean(), fc.constant(null));
const deep = fc.integer({ min: 50, max: 2000 }).map((depth) => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
});
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: leaf },
  { weight: 2, arbitrary: fc.array(leaf, { maxLength: 8 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), leaf, { maxKeys: 4 }) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 100_000 }, (_, i) => i)) },
);
const weirdId = fc.oneof(
  fc.constantFrom('0', '-1', '1.5', '2147483648', '99999999999999999999', 'abc', '%00', '%ff', '1e3', ' 1', '0x10', ''),
  fc.integer({ min: -5, max: 2 ** 31 + 5 }).map(String),
);

/** Percent-encodes any string; a lone surrogate goes out as the invalid UTF-8 bytes of one. */
const pct = (s: string) =>
  s.isWellFormed() ? encodeURIComponent(s) : encodeURIComponent(s.toWellFormed()).replace(/%EF%BF%BD/g, '%ED%A0%80');

function keysOf(schema: z.ZodType | undefined): string[] {
  let s: unknown = schema;
  while (s instanceof z.ZodPipe) s = s.in;
  return s instanceof z.ZodObject ? Object.keys(s.shape) : [];
}

/** A body: the route's example with fields replaced by weird values, or something else entirely. */
function bodyFor(route: Route): fc.Arbitrary<unknown> {
  const keys = [...keysOf(route.body), 'extra'];
  const base =
    typeof route.example === 'object' && route.example !== null ? (route.example as Record<string, unknown>) : {};
  const mutated = fc
    .dictionary(fc.constantFrom(...keys), weirdValue, { maxKeys: 3 })
    .map((changes) => ({ ...base, ...changes }));
  return fc.oneof({ weight: 6, arbitrary: mutated }, { weight: 1, arbitrary: weirdValue });
}

function queryFor(route: Route): fc.Arbitrary<string> {
  const keys = [...keysOf(route.query), 'page', 'perPage', 'x'];
  const value = fc.oneof(weirdString, weirdNumber.map(String));
  return fc
    .array(fc.tuple(fc.constantFrom(...keys), value), { maxLength: 4 })
    .map((pairs) => pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&'));
}

interface Case {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  key: boolean;
}

function caseFor(route: Route): fc.Arbitrary<Case> {
  const path = fc
    .record(
      Object.fromEntries(
        (route.path.match(/:[A-Za-z]+/g) ?? []).map((p) => [
          p.slice(1),
          fc.oneof(fc.constant(String(ids[p.slice(1)] ?? 1)), weirdId),
        ]),
      ),
    )
    .map((values) =>
      route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => pct(values[name] ?? '1')).replace(/\*$/, 'x'),
    );
  const method = fc.oneof(
    { weight: 8, arbitrary: fc.constant(route.method) },
    { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE') },
  );
  const rawBody = fc.oneof(
    { weight: 8, arbitrary: bodyFor(route).map((b) => JSON.stringify(b) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{', '{"a":', 'nul', '\u0000', '[]', '"x"', '{"a":"\\ud800"}', '{"a":1e999}'),
    },
  );
  return fc.record({
    method,
    path: fc.tuple(path, queryFor(route)).map(([p, q]) => (q ? `${p}?${q}` : p)),
    body: route.body ? rawBody : fc.option(rawBody, { nil: undefined }),
    contentType: fc.oneof(
      { weight: 9, arbitrary: fc.constant('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'multipart/form-data'),
      },
    ),
    key: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  });
}

async function send(c: Case): Promise<void> {
  sent++;
  const headers: Record<string, string> = {};
  if (c.key) headers.authorization = `Bearer ${ws.keys.admin}`;
  const hasBody = c.body !== undefined && c.method !== 'GET';
  if (hasBody) headers['content-type'] = c.contentType ?? 'application/json';
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${app.url}${c.path}`, { method: c.method, headers, body: hasBody ? c.body : undefined });
    text = await res.text();
  } catch (err) {
    // A connection the server dropped is a failure of that request, named like the others.
    failures.push(
      `${c.method} ${c.path.slice(0, 200)} -> ${(err as Error).message} (${String((err as { cause?: unknown }).cause)}) body: ${(c.body ?? '').slice(0, 300)}`,
    );
    return;
  }
  const label = `${c.method} ${c.path.slice(0, 200)} -> ${res.status}`;
  if (res.status >= 500) failures.push(`${label} ${text.slice(0, 200)} body: ${(c.body ?? '').slice(0, 300)}`);
  // The public share page answers people, not programs: its 404 is a page.
  else if (
    res.status >= 400 &&
    !(c.path.startsWith('/share/') && res.headers.get('content-type')?.startsWith('text/html'))
  ) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      failures.push(`${label}: not JSON: ${text.slice(0, 100)}`);
      return;
    }
    if (typeof (body as { error?: unknown }).error !== 'string' || !('fields' in (body as object)))
      failures.push(`${label}: no error envelope: ${text.slice(0, 100)}`);
  }
  // Whatever the input, a JSON answer is what the route's response schema (or the error envelope) says.
  if (res.status < 500 && res.headers.get('content-type')?.includes('json') && text) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    const problem = responseProblem(c.method, c.path, res.status, res.headers.get('content-type'), parsed);
    if (problem) failures.push(`${label}: ${problem.slice(0, 600)}`);
  }
}

async function runAll(cases: Case[]): Promise<void> {
  for (let i = 0; i < cases.length; i += PARALLEL) await Promise.all(cases.slice(i, i + PARALLEL).map(send));
}

describe(`no 5xx on bad input (seed ${SEED})`, () => {
  it('every route, every kind of bad body, query, id and method', async () => {
    failures = [];
    const perRoute = Math.ceil((TOTAL * 0.95) / routes.length);
    for (const [i, route] of routes.entries()) {
      const cases = fc.sample(caseFor(route), { numRuns: perRoute, seed: SEED + i });
      await runAll(cases);
    }
    expect(failures.slice(0, 20)).toEqual([]);
  }, 480_000);

  it('odd paths and methods anywhere', async () => {
    failures = [];
    const odd = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'),
      path: fc.oneof(
        fc.constantFrom(
          '//',
          '///',
          '/%00',
          '/%',
          '/%zz',
          '/projects//prompts',
          '/orgs/%00/projects',
          '/projects/1/../../orgs',
          '/?a=%',
          '/projects/1?period=%ff',
        ),
        fc.integer({ min: 1, max: 8 }).map((kb) => `/${'a'.repeat(kb * 1024)}`),
        fc.string({ unit: 'binary', maxLength: 30 }).map((s) => `/${pct(s)}`),
      ),
      body: fc.constant(undefined),
      key: fc.boolean(),
    });
    await runAll(
      fc
        .sample(odd, { numRuns: Math.ceil(TOTAL * 0.05), seed: SEED })
        .map((c) => ({ ...c, method: c.method === 'HEAD' ? 'GET' : c.method })),
    );
    expect(failures.slice(0, 20)).toEqual([]);
  }, 120_000);

  it('concurrent duplicate creates', async () => {
    failures = [];
    const creates = routes.filter((r) => r.method === 'POST' && r.example !== undefined && r.access !== 'public');
    for (const route of creates) {
      const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => String(ids[name] ?? 1));
      await Promise.all(
        Array.from({ length: 6 }, () => send({ method: 'POST', path, body: JSON.stringify(route.example), key: true })),
      );
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(TOTAL);
  }, 120_000);
});
