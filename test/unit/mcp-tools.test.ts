import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/http/prometheus.ts';
import { allRoutes } from '../../src/http/routes/index.ts';
import { buildTools } from '../../src/mcp/tools.ts';

/**
 * The route table and the MCP tool list, walked together: every keyed read
 * endpoint of a workspace or a project has its tool (or a stated reason not
 * to), every tool is its route (path ids plus the route's own query or body
 * schema, its role, its variant), so the two cannot drift apart.
 */

const routes = allRoutes(createMetrics());
const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const tools = buildTools(routes, 'AB');

const readRoutes = routes.filter(
  (r) =>
    r.method === 'GET' &&
    r.access !== 'public' &&
    r.access !== 'signed-in' &&
    (r.path === '/whoami' || r.path.startsWith('/orgs/:orgId') || r.path.startsWith('/projects/:id')),
);

describe('MCP tools and the route table', () => {
  it('give every keyed read route of a workspace or project a tool, or say why not', () => {
    const missing = readRoutes.filter((r) => !r.mcp).map(key);
    expect(missing, 'give these `mcp: { tool }` in their route definition, or `mcp: { none: why }`').toEqual([]);
  });

  it('name a route of the table each, one tool per route, in snake_case', () => {
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });

  it('include the tools CONTRACT.md names', () => {
    const names = tools.map((t) => t.name);
    for (const n of [
      'whoami',
      'list_projects',
      'get_project',
      'get_report',
      'get_trends',
      'list_prompts',
      'get_prompt',
      'get_answer',
      'get_sources',
      'get_competitors',
      'get_sentiment',
      'list_scans',
      'get_scan',
      'estimate_scan',
      'start_scan',
    ]) {
      expect(names).toContain(n);
    }
    expect(tools.find((t) => t.name === 'start_scan')?.route.access).toBe('admin');
  });

  it('take their route’s path ids and its query or body fields, with its schema', () => {
    for (const tool of tools) {
      const { route } = tool;
      const ids = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) =>
        m[1] === 'id' ? 'projectId' : (m[1] as string),
      );
      const input = route.query ?? route.body;
      const fields = input
        ? Object.keys(
            (z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) as { properties?: object }).properties ??
              {},
          )
        : [];
      expect(Object.keys(tool.inputSchema.properties), tool.name).toEqual([...ids, ...fields]);
      expect(tool.inputSchema.required ?? [], tool.name).toEqual(
        expect.arrayContaining(ids.filter((i) => i !== 'orgId')),
      );
      if (input) {
        const fromRoute = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as {
          properties: Record<string, unknown>;
        };
        for (const f of fields)
          expect(tool.inputSchema.properties[f], `${tool.name}.${f}`).toEqual(fromRoute.properties[f]);
      }
    }
  });

  it('leave out the tools of a variant the deployment does not serve, like their routes', () => {
    const a = buildTools(routes, 'A').map((t) => t.name);
    const b = buildTools(routes, 'B').map((t) => t.name);
    expect(a).toContain('list_personas');
    expect(a).toContain('list_shares');
    expect(a).not.toContain('list_events');
    expect(b).toContain('list_events');
    expect(b).not.toContain('list_personas');
    expect(b).not.toContain('list_shares');
  });
});
