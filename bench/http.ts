/**
 * bench/http: authenticated GET /whoami on the real API against a bare
 * node:http server answering a small JSON object, same machine, same load.
 * Target (issue 14): /whoami at 0.7x+ of bare req/s, p99 under 10 ms at 50
 * connections. Each server's CPU time per request (user + system, from
 * /proc) is printed too: on a machine shared with other work req/s follow
 * whoever else runs, CPU per request much less.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext } from '../src/context.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { createApiKey } from '../src/domain/workspace/api-keys.ts';
import { addMember } from '../src/domain/workspace/members.ts';
import { createOrg } from '../src/domain/workspace/orgs.ts';
import { createUser } from '../src/domain/workspace/users.ts';
import { runBench } from './lib.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench';
const NODE = process.execPath;

/** BUSY_US (the --calibrate runs): microseconds of busy work added to each request. */
const BARE = `
const http = require('node:http');
const body = JSON.stringify({ kind: 'token', ok: true });
const busy = BigInt(Math.round(Number(process.env.BUSY_US ?? 0) * 1000));
http.createServer((req, res) => {
  if (busy > 0n) { const t = process.hrtime.bigint(); while (process.hrtime.bigint() - t < busy); }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }); res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
`;

/**
 * `--calibrate`: the bare server again with 5, 10, 20 and 40 µs of busy work
 * a request, as a ratio to the plain one. Where the load generator shares the
 * cores, a server's socket writes cost more once it is the bottleneck (the
 * client then sleeps, and each write wakes it), so the ratio falls faster
 * than the added CPU alone says: these figures tell what ratio a given
 * overhead can reach on the machine at hand.
 */
const CALIBRATE = process.argv.includes('--calibrate');

function startProcess(args: string[], env: Record<string, string>): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout?.on('data', () => undefined);
    child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
    resolve(child);
  });
}

async function waitFor(url: string, headers: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(url, { headers })).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

/** CPU time of a process so far (user + system, all its threads), in microseconds; null where /proc is not there. */
function cpuMicros(child: ChildProcess): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return null;
  }
}

async function load(server: ChildProcess, url: string, headers: Record<string, string>) {
  // A short warm-up so JIT and connection pools are hot before measuring.
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers });
  const cpuBefore = cpuMicros(server);
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers });
  const cpuAfter = cpuMicros(server);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const cpuUsPerReq = cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) / r.requests.total) * 10) / 10;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuUsPerReq };
}

async function main() {
  await ensureDatabase(DATABASE_URL);
  const apiPort = '18081';
  const barePort = '18082';
  const config = loadConfig({ DATABASE_URL, PORT: apiPort, LOG_LEVEL: 'warn' });
  const ctx = createContext(config, { role: 'cli', dbPoolSize: 2 });
  const { db } = ctx;
  await migrateToLatest(db);
  const org = await createOrg(ctx, { name: 'Bench', plan: 'pro' });
  const user = await createUser(ctx, { email: `bench-${Date.now()}@example.com`, name: 'Bench' });
  await addMember(ctx, { orgId: org.id, userId: user.id, role: 'owner' });
  const { key } = await createApiKey(ctx, { orgId: org.id, userId: user.id, name: 'bench' });
  await closeContext(ctx);

  const api = await startProcess([path.resolve('src/cli/main.ts'), 'api'], { DATABASE_URL, PORT: apiPort, LOG_LEVEL: 'info', HOST: config.host });
  const bare = await startProcess(['-e', BARE], { PORT: barePort });
  const auth = { authorization: `Bearer ${key}` };
  try {
    await waitFor(`http://127.0.0.1:${apiPort}/whoami`, auth);
    await waitFor(`http://127.0.0.1:${barePort}/`);
    const bareResult = await load(bare, `http://127.0.0.1:${barePort}/`, {});
    const whoami = await load(api, `http://127.0.0.1:${apiPort}/whoami`, auth);
    const ratio = whoami.rps / bareResult.rps;
    const calibration = [];
    for (const busyUs of CALIBRATE ? [5, 10, 20, 40] : []) {
      const port = String(18083 + calibration.length);
      const busy = await startProcess(['-e', BARE], { PORT: port, BUSY_US: String(busyUs) });
      try {
        await waitFor(`http://127.0.0.1:${port}/`);
        const r = await load(busy, `http://127.0.0.1:${port}/`, {});
        calibration.push({ busyUsPerRequest: busyUs, reqPerSec: Math.round(r.rps), ratio: Math.round((r.rps / bareResult.rps) * 1000) / 1000, cpuUsPerReq: r.cpuUsPerReq });
      } finally {
        busy.kill('SIGTERM');
      }
    }
    const figures = {
      bench: 'http',
      date: new Date().toISOString().slice(0, 10),
      machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
      connections: CONNECTIONS,
      seconds: DURATION,
      bareReqPerSec: Math.round(bareResult.rps),
      bareP99Ms: bareResult.p99,
      whoamiReqPerSec: Math.round(whoami.rps),
      whoamiP50Ms: whoami.p50,
      whoamiP99Ms: whoami.p99,
      ratio: Math.round(ratio * 1000) / 1000,
      bareCpuUsPerReq: bareResult.cpuUsPerReq,
      whoamiCpuUsPerReq: whoami.cpuUsPerReq,
      ...(CALIBRATE ? { bareWithBusyWork: calibration } : {}),
      targets: { ratioAtLeast: 0.7, p99UnderMs: 10, ratioMet: ratio >= 0.7, p99Met: whoami.p99 < 10 },
    };
    console.log(JSON.stringify(figures, null, 2));
  } finally {
    api.kill('SIGTERM');
    bare.kill('SIGTERM');
  }
}

runBench(main);
