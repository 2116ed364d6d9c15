import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { responseSchemas } from '../../src/domain/common/responses.ts';
import { documented } from '../../src/http/openapi.ts';
import { TAGS } from '../../src/http/tags.ts';
import { createMetrics } from '../../src/http/prometheus.ts';
import { allRoutes } from '../../src/http/routes/index.ts';
import { openApiDocument } from '../../scripts/openapi.ts';

/**
 * The OpenAPI document as the route table builds it: every operation a key
 * can call declares its success responses with named schemas, the refusals it
 * can answer and nothing else, a readable operationId and a described tag.
 * (test/openapi/client.test.ts lints it and compiles a client from it; the
 * integration tests check every response against these schemas.)
 */

type Operation = {
  operationId: string;
  tags: string[];
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema: { $ref?: string } }>; headers?: Record<string, unknown> }
  >;
  requestBody?: { required: boolean; content: Record<string, unknown> };
  security: unknown[];
  'x-access': string;
};

const routes = allRoutes(createMetrics());
const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const doc = openApiDocument('AB');
const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op as Operation] as const),
);
const opOf = (method: string, path: string) =>
  (doc.paths[path.replace(/:([A-Za-z]+)/g, '{$1}')] as Record<string, Operation> | undefined)?.[method.toLowerCase()];

describe('the OpenAPI document', () => {
  it('shows every route a key can call, and no signed-in-only action', () => {
    const shown = routes.filter(documented);
    expect(operations.length).toBe(shown.length);
    for (const route of shown) expect(opOf(route.method, route.path), key(route)).toBeDefined();
    for (const route of routes.filter((r) => r.access === 'signed-in'))
      expect(opOf(route.method, route.path), key(route)).toBeUndefined();
    expect(doc.paths['/orgs/{orgId}/tokens']).toBeUndefined();
  });

  it('has every shown route declare a success response, JSON ones by a named schema', () => {
    for (const route of routes.filter(documented)) {
      const declared = Object.keys(route.responses ?? {}).map(Number);
      expect(
        declared.some((s) => s < 400),
        `${key(route)}: add \`responses\` with its success status(es) to the route`,
      ).toBe(true);
      for (const [status, spec] of Object.entries(route.responses ?? {})) {
        if (spec instanceof z.ZodType)
          expect(responseSchemas.get(spec)?.id, `${key(route)} ${status}: name its schema with named()`).toBeTruthy();
      }
    }
    for (const [name, op] of operations) {
      const success = Object.entries(op.responses).filter(([s]) => /^[23]/.test(s));
      expect(success.length, name).toBeGreaterThan(0);
      for (const [status, r] of success) {
        const json = r.content?.['application/json'];
        // The document itself is the one JSON body described by OpenAPI, not by a schema of its own.
        if (json && name !== 'GET /openapi.json')
          expect(json.schema.$ref, `${name} ${status}`).toMatch(/^#\/components\/schemas\/[A-Z]\w+$/);
      }
    }
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        'Project',
        'Prompt',
        'Scan',
        'Report',
        'Answer',
        'Error',
        'ProjectList',
        'PromptList',
        'ScanList',
      ]),
    );
  });

  it('types the bodies the issue names', () => {
    const schemaOf = (method: string, path: string) =>
      opOf(method, path)?.responses['200']?.content?.['application/json']?.schema.$ref;
    expect(schemaOf('GET', '/whoami')).toBe('#/components/schemas/Whoami');
    expect(schemaOf('GET', '/orgs/:orgId/projects')).toBe('#/components/schemas/ProjectList');
    expect(schemaOf('POST', '/projects/:id/prompts')).toBe('#/components/schemas/PromptResponse');
    expect(schemaOf('GET', '/projects/:id/report')).toBe('#/components/schemas/ReportResponse');
    expect(schemaOf('GET', '/projects/:id/scans/:scanId')).toBe('#/components/schemas/ScanDetail');
    expect(Object.keys(opOf('GET', '/projects/:id/prompts/export.csv')?.responses['200']?.content ?? {})).toEqual([
      'text/csv',
    ]);
    expect(Object.keys(opOf('GET', '/metrics')?.responses['200']?.content ?? {})).toEqual(['text/plain']);
    expect(Object.keys(opOf('GET', '/share/:token')?.responses['200']?.content ?? {})).toEqual(['text/html']);
    expect(opOf('DELETE', '/orgs/:orgId/members/:userId')?.responses['204']).toEqual({ description: 'Removed' });
  });

  it('lists the refusals of each operation, not one list for all', () => {
    for (const route of routes.filter(documented)) {
      const op = opOf(route.method, route.path) as Operation;
      const statuses = Object.keys(op.responses);
      const name = key(route);
      expect(statuses, name).toContain('default');
      expect(statuses.includes('413') && statuses.includes('415'), name).toBe(route.body !== undefined);
      expect(statuses.includes('422'), name).toBe(route.body !== undefined || route.query !== undefined);
      // /metrics is public, yet answers 401 when the deployment sets METRICS_TOKEN.
      expect(statuses.includes('401'), name).toBe(route.access !== 'public' || name === 'GET /metrics');
      expect(statuses.includes('403'), name).toBe(route.access === 'member' || route.access === 'admin');
      expect(statuses.includes('404'), name).toBe(route.path.includes(':'));
      if (statuses.includes('429')) expect(op.responses['429']?.headers, name).toHaveProperty('Retry-After');
    }
    expect(Object.keys(opOf('POST', '/projects/:id/scans')?.responses ?? {})).toContain('402');
    expect(Object.keys(opOf('GET', '/readyz')?.responses ?? {})).toEqual(['200', '503', 'default']);
    expect(opOf('GET', '/readyz')?.responses['503']?.content?.['application/json']?.schema.$ref).toBe(
      '#/components/schemas/Readiness',
    );
    const limited = operations.filter(([, op]) => op.responses['429']).map(([name]) => name);
    expect(limited.sort()).toEqual([
      'POST /orgs/{orgId}/invitations',
      'POST /orgs/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}/replay',
      'POST /orgs/{orgId}/webhooks/{webhookId}/test',
      'POST /projects/{id}/crawler-logs',
      'POST /projects/{id}/crawler-logs/pull',
      'POST /projects/{id}/crawlers/check',
      'POST /projects/{id}/pages/import-sitemap',
      'POST /projects/{id}/prompts/rewrite',
    ]);
  });

  it('marks a request body required where {} is not a valid one', () => {
    expect(opOf('POST', '/orgs/:orgId/projects')?.requestBody?.required).toBe(true);
    expect(opOf('POST', '/projects/:id/prompts')?.requestBody?.required).toBe(true);
    expect(opOf('POST', '/projects/:id/scans/estimate')?.requestBody?.required).toBe(false);
    expect(opOf('PATCH', '/projects/:id')?.requestBody?.required).toBe(false);
    // A log piece is JSON text or a gzip file.
    expect(Object.keys(opOf('POST', '/projects/:id/crawler-logs')?.requestBody?.content ?? {})).toEqual([
      'application/json',
      'application/gzip',
    ]);
  });

  it('names every operation readably and groups it under a described tag', () => {
    const shownKeys = routes.filter(documented).map(key);
    const named = routes.filter((r) => r.operationId !== undefined || r.tag !== undefined).map(key);
    expect(
      routes
        .filter(documented)
        .filter((r) => !r.operationId || !r.tag)
        .map(key),
      'give these an operationId and a tag in their route definition',
    ).toEqual([]);
    expect(
      named.filter((k) => !shownKeys.includes(k)),
      'a route the document leaves out needs no operationId or tag',
    ).toEqual([]);
    const ids = operations.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/);
    expect(opOf('POST', '/projects/:id/prompts')?.operationId).toBe('createPrompt');
    expect(opOf('GET', '/projects/:id/report')?.operationId).toBe('getReport');
    const described = new Set<string>(doc.tags.map((t) => t.name));
    for (const [name, op] of operations) expect(described.has(op.tags[0] as string), name).toBe(true);
    for (const tag of doc.tags) expect(tag.description.length).toBeGreaterThan(20);
    expect(TAGS.map((t): string => t.name)).toEqual(expect.arrayContaining(doc.tags.map((t) => t.name)));
    const siteRouteTags = new Set(
      operations.filter(([name]) => name.includes(' /projects/')).map(([, op]) => op.tags[0]),
    );
    expect(siteRouteTags.size).toBeGreaterThan(8);
    expect(doc.info.license.name).toBeTruthy();
  });

  it('leaves variant-only operations out of a deployment that does not serve them', () => {
    const b = openApiDocument('B');
    expect(b.paths['/projects/{id}/personas']).toBeUndefined();
    expect(b.paths['/projects/{id}/events']).toBeDefined();
    expect(Object.keys(b.components.schemas)).not.toContain('Persona');
    const a = openApiDocument('A');
    expect(a.paths['/projects/{id}/events']).toBeUndefined();
    expect(Object.keys(a.components.schemas)).not.toContain('EventList');
  });
});
