import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The alert rules that ship in ops/prometheus: valid for Prometheus
 * (`promtool check rules`), firing when they should and quiet otherwise
 * (`promtool test rules` over sightline-alerts.test.yml), each with its
 * runbook entry in docs/operations.md. promtool is Debian's `prometheus`
 * package, installed by scripts/promtool.sh (npm test runs it).
 */

const run = promisify(execFile);
const PROMTOOL = process.env.PROMTOOL_PATH ?? '/usr/bin/promtool';
const RULES_DIR = path.resolve('ops/prometheus');
const RULES = 'sightline-alerts.yml';

const alertNames = () =>
  [...readFileSync(path.join(RULES_DIR, RULES), 'utf8').matchAll(/^\s*- alert: (\w+)\s*$/gm)].map(
    (m) => m[1] as string,
  );

async function promtool(...args: string[]): Promise<{ code: number; out: string }> {
  if (!existsSync(PROMTOOL))
    throw new Error(`No promtool at ${PROMTOOL}: run bash scripts/promtool.sh (npm test does), or set PROMTOOL_PATH`);
  try {
    const { stdout, stderr } = await run(PROMTOOL, args, { cwd: RULES_DIR });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

describe('alert rules (ops/prometheus)', () => {
  it('pass promtool check rules', async () => {
    const result = await promtool('check', 'rules', RULES);
    expect(result.out).toContain(`SUCCESS: ${alertNames().length} rules found`);
    expect(result.code).toBe(0);
  });

  it('fire and stay quiet as their unit tests expect (promtool test rules)', async () => {
    const result = await promtool('test', 'rules', 'sightline-alerts.test.yml');
    expect(result.out).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('are each tested by the unit tests', () => {
    const tests = readFileSync(path.join(RULES_DIR, 'sightline-alerts.test.yml'), 'utf8');
    const tested = new Set([...tests.matchAll(/alertname: (\w+)/g)].map((m) => m[1]));
    expect(alertNames().filter((name) => !tested.has(name))).toEqual([]);
  });

  it('each have a runbook entry in docs/operations.md, which their annotation points to', () => {
    const docs = readFileSync('docs/operations.md', 'utf8');
    const rules = readFileSync(path.join(RULES_DIR, RULES), 'utf8');
    const names = alertNames();
    expect(names.length).toBeGreaterThanOrEqual(8);
    for (const name of names) {
      expect(docs, name).toMatch(new RegExp(`^### ${name}$`, 'm'));
      expect(rules, name).toContain(`runbook: docs/operations.md#${name.toLowerCase()}`);
    }
  });

  it("the Grafana dashboard's queries are PromQL that Prometheus parses", async () => {
    const dashboard = JSON.parse(readFileSync('ops/grafana/sightline-dashboard.json', 'utf8')) as {
      panels: { targets?: { expr: string }[] }[];
    };
    // Grafana's interval variable becomes a fixed range; each query a recording rule, which promtool parses.
    const exprs = dashboard.panels.flatMap((p) =>
      (p.targets ?? []).map((t) => t.expr.replaceAll('$__rate_interval', '5m')),
    );
    expect(exprs.length).toBeGreaterThan(15);
    const dir = mkdtempSync(path.join(tmpdir(), 'sightline-dashboard-'));
    try {
      const file = path.join(dir, 'dashboard-queries.yml');
      const rules = exprs
        .map((expr, i) => `      - record: dashboard:query_${i}\n        expr: ${JSON.stringify(expr)}`)
        .join('\n');
      writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules}\n`);
      const result = await promtool('check', 'rules', file);
      expect(result.out).toContain(`SUCCESS: ${exprs.length} rules found`);
      expect(result.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('would fail on a rule Prometheus cannot parse (the check can fail)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sightline-rules-'));
    try {
      const broken = path.join(dir, 'broken.yml');
      writeFileSync(
        broken,
        'groups:\n  - name: broken\n    rules:\n      - alert: Broken\n        expr: sum(sightline_queue_jobs\n',
      );
      const result = await promtool('check', 'rules', broken);
      expect(result.code).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
