import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const LOGGER = path.resolve('src/logger.ts');

/** Runs `body` in a fresh Node process with `log` from createLogger('info') (stdout, in blocks); answers its stdout lines as they arrive. */
function child(body: string) {
  const proc = spawn(
    path.resolve('node_modules/.bin/node'),
    [
      '--input-type=module',
      '-e',
      `import { accessLog, createLogger } from ${JSON.stringify(LOGGER)};\nconst log = createLogger('info');\n${body}`,
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  let rest = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) {
      raw.push(part);
      lines.push(JSON.parse(part) as Record<string, unknown>);
    }
  });
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  return { proc, lines, raw, exited };
}

describe('service logger', () => {
  it('writes every line, in order, when the process exits at once', async () => {
    const run = child(`for (let i = 0; i < 1000; i++) log.info({ i }, 'line');\nprocess.exit(0);`);
    expect(await run.exited).toBe(0);
    expect(run.lines.map((l) => l.i)).toEqual([...Array(1000).keys()]);
  });

  it('writes every line when the process ends because it has nothing left to do', async () => {
    const run = child(`for (let i = 0; i < 5; i++) log.info({ i }, 'line');`);
    expect(await run.exited).toBe(0);
    expect(run.lines.map((l) => l.i)).toEqual([0, 1, 2, 3, 4]);
  });

  it('still exits when whoever read its output is gone', async () => {
    // The lines are logged as the process ends, after its reader closed: nothing can be written, and nothing may hang.
    const run = child(
      `process.stdin.once('data', () => { for (let i = 0; i < 3; i++) log.info({ i }, 'line'); process.exit(0); });`,
    );
    run.proc.stdout.destroy();
    run.proc.stdin.end('go');
    expect(await run.exited).toBe(0);
  });

  it('writes lines while the process runs on, without waiting for a full block or the exit', async () => {
    const run = child(`log.info({ i: 0 }, 'line'); log.warn({ i: 1 }, 'line');\nsetInterval(() => undefined, 1000);`);
    try {
      await expect.poll(() => run.lines.length, { timeout: 10_000 }).toBe(2);
      expect(run.lines).toMatchObject([
        { level: 30, i: 0, msg: 'line', name: 'sightline' },
        { level: 40, i: 1, msg: 'line' },
      ]);
    } finally {
      // SIGKILL: no exit handler runs, so what arrived was written while the process ran.
      run.proc.kill('SIGKILL');
      await run.exited;
    }
  });

  it('writes access lines as text exactly as pino writes the same fields, escaping what needs it', async () => {
    const cases = [
      {
        reqId: '6f1c2d3e-0000-4000-8000-000000000001',
        method: 'GET',
        path: '/whoami',
        route: '/whoami',
        status: 200,
        ms: 0.4,
        orgId: 12,
        keyId: 7,
      },
      {
        reqId: 'trace-42',
        method: 'POST',
        path: '/projects/3/prompts',
        route: '/projects/:id/prompts',
        status: 422,
        ms: 12,
        orgId: 1,
        keyId: undefined,
      },
      {
        reqId: 'a.b:c',
        method: 'DELETE',
        path: null,
        route: 'unmatched',
        status: 400,
        ms: 1.5,
        orgId: undefined,
        keyId: undefined,
      },
      {
        reqId: 'x',
        method: 'GET',
        path: '/shares/*/projects/42/...',
        route: 'unmatched',
        status: 404,
        ms: 1234.5,
        orgId: undefined,
        keyId: undefined,
      },
      // Not plain: pino's own escaping.
      {
        reqId: 'y',
        method: 'GET',
        path: '/a"b\\c',
        route: 'unmatched',
        status: 404,
        ms: 3,
        orgId: undefined,
        keyId: undefined,
      },
    ];
    const run = child(
      `const write = accessLog(log);\nfor (const fields of ${JSON.stringify(cases)}) { write(fields); log.info(fields, 'request'); }\nprocess.exit(0);`,
    );
    expect(await run.exited).toBe(0);
    const withoutTime = run.raw.map((line) => line.replace(/"time":\d+/, '"time":0'));
    expect(withoutTime).toHaveLength(cases.length * 2);
    for (let i = 0; i < cases.length; i++) expect(withoutTime[2 * i]).toBe(withoutTime[2 * i + 1]);
    expect(run.lines[0]).toMatchObject({
      level: 30,
      msg: 'request',
      name: 'sightline',
      reqId: cases[0]!.reqId,
      orgId: 12,
      keyId: 7,
    });
    expect(run.lines[8]).toMatchObject({ path: '/a"b\\c' });
  });
});
