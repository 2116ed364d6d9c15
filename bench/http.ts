/**
 * bench/http: authenticated GET /whoami on the real API (`sightline api`)
 * beside fastify 5 doing the same work (bench/fastify-whoami.ts), once with
 * fastify's own logger setup and once given Sightline's log writer, and a
 * bare node:http server answering a small JSON object: all four as child
 * processes of this one, measured in interleaved rounds (each round starts
 * with the next server) so that other work on a shared machine falls on all
 * of them alike. Target (issue 30): Sightline at 1.1x+ fastify with the same
 * writer in requests per CPU second of the server process (user + system
 * from /proc, over the measured seconds), p99 under 10 ms at 50 connections.
 * Each round's figures and ratios go to stderr as it ends; the medians, as
 * JSON, to stdout. BENCH_SECONDS (10) a measurement, BENCH_ROUNDS (5),
 * BENCH_HTTP_SERVERS (a comma list of bare, sightline, fastify,
 * fastifySightlineWriter) to measure fewer.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext } from '../src/context.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { createApiKey } from '../src/domain/orgs/api-keys.ts';
import { addMember } from '../src/domain/orgs/members.ts';
import { createOrg } from '../src/domain/orgs/orgs.ts';
import { createUser } from '../src/domain/orgs/users.ts';
import { runBench } from './lib.ts';
import { loadJobTable } from '../jobs/load-table.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
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
  for (let i = 0; i < 600; i++) {
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

interface Measured {
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  cpuUsPerReq: number | null;
}

async function load(
  server: ChildProcess,
  url: string,
  headers: Record<string, string>,
  warmUpSeconds: number,
): Promise<Measured> {
  // A short warm-up so JIT, connection pools and the key cache are hot before measuring.
  await autocannon({ url, connections: CONNECTIONS, duration: warmUpSeconds, headers });
  const cpuBefore = cpuMicros(server);
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers });
  const cpuAfter = cpuMicros(server);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const cpuUsPerReq =
    cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) / r.requests.total) * 10) / 10;
  return {
    rps: Math.round(r.requests.average),
    requests: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUsPerReq,
  };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** How Sightline compares with another server in one round: requests per CPU second (the primary figure) and req/s, each as Sightline's over the other's. */
function versus(sightline: Measured, other: Measured) {
  return {
    cpu: sightline.cpuUsPerReq && other.cpuUsPerReq ? round3(other.cpuUsPerReq / sightline.cpuUsPerReq) : null,
    rps: round3(sightline.rps / other.rps),
  };
}

type ServerName = 'bare' | 'sightline' | 'fastify' | 'fastifySightlineWriter';
type Versus = ReturnType<typeof versus>;
type Round = Partial<Record<ServerName, Measured>> & {
  round: number;
  order: ServerName[];
  loadAverage: number;
  ratios: { vsFastify?: Versus; vsFastifySameWriter?: Versus; vsBare?: Versus };
};

async function main() {
  await ensureDatabase(DATABASE_URL);
  const ports: Record<ServerName, string> = {
    bare: '18082',
    sightline: '18081',
    fastify: '18083',
    fastifySightlineWriter: '18084',
  };
  const config = loadConfig({ DATABASE_URL, PORT: ports.sightline, LOG_LEVEL: 'warn' });
  const ctx = createContext(config, { role: 'cli', jobTable: loadJobTable, dbPoolSize: 2 });
  const { db } = ctx;
  await migrateToLatest(db);
  const org = await createOrg(ctx, { name: 'Bench', plan: 'pro' });
  const user = await createUser(ctx, { email: `bench-${Date.now()}@example.com`, name: 'Bench' });
  await addMember(ctx, { orgId: org.id, userId: user.id, role: 'owner' });
  const { key } = await createApiKey(ctx, { orgId: org.id, userId: user.id, name: 'bench' });
  await closeContext(ctx);

  const auth = { authorization: `Bearer ${key}` };
  const fastifyScript = path.resolve('bench/fastify-whoami.ts');
  const servers: Record<ServerName, { process: ChildProcess; url: string; headers: Record<string, string> }> = {
    bare: {
      process: await startProcess(['-e', BARE], { PORT: ports.bare }),
      url: `http://127.0.0.1:${ports.bare}/`,
      headers: {},
    },
    sightline: {
      process: await startProcess([path.resolve('src/cli/main.ts'), 'api'], {
        DATABASE_URL,
        PORT: ports.sightline,
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
      }),
      url: `http://127.0.0.1:${ports.sightline}/whoami`,
      headers: auth,
    },
    fastify: {
      process: await startProcess([fastifyScript], { DATABASE_URL, PORT: ports.fastify, LOG_WRITER: 'fastify' }),
      url: `http://127.0.0.1:${ports.fastify}/whoami`,
      headers: auth,
    },
    fastifySightlineWriter: {
      process: await startProcess([fastifyScript], {
        DATABASE_URL,
        PORT: ports.fastifySightlineWriter,
        LOG_WRITER: 'sightline',
      }),
      url: `http://127.0.0.1:${ports.fastifySightlineWriter}/whoami`,
      headers: auth,
    },
  };
  const only =
    (process.env.BENCH_HTTP_SERVERS?.split(',') as ServerName[] | undefined) ?? (Object.keys(servers) as ServerName[]);
  try {
    for (const name of only) await waitFor(servers[name].url, servers[name].headers);
    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with the next server, so none is always measured first (or right after the same one).
      const order = only.map((_, i) => only[(i + round) % only.length]!);
      const figures: Partial<Record<ServerName, Measured>> = {};
      for (const name of order)
        figures[name] = await load(
          servers[name].process,
          servers[name].url,
          servers[name].headers,
          round === 0 ? 3 : 1,
        );
      const { bare, sightline, fastify, fastifySightlineWriter } = figures;
      const row: Round = {
        round: round + 1,
        order,
        loadAverage: round3(os.loadavg()[0]!),
        ...figures,
        ratios: {
          ...(sightline && fastify && { vsFastify: versus(sightline, fastify) }),
          ...(sightline &&
            fastifySightlineWriter && { vsFastifySameWriter: versus(sightline, fastifySightlineWriter) }),
          ...(sightline && bare && { vsBare: versus(sightline, bare) }),
        },
      };
      console.error(JSON.stringify(row));
      rounds.push(row);
    }
    const medianOf = (pick: (r: Round) => number | null | undefined) => {
      const values = rounds.map(pick).filter((v): v is number => typeof v === 'number');
      return values.length ? round3(median(values)) : null;
    };
    /** CPU per request over every round at once (all CPU over all requests): beside the medians, less moved by one round's neighbours. */
    const pooledCpu = (name: ServerName) => {
      const measured = rounds.map((r) => r[name]).filter((m): m is Measured => m?.cpuUsPerReq != null);
      const requests = measured.reduce((sum, m) => sum + m.requests, 0);
      return requests
        ? Math.round((measured.reduce((sum, m) => sum + m.cpuUsPerReq! * m.requests, 0) / requests) * 10) / 10
        : null;
    };
    const pooled = Object.fromEntries(only.map((n) => [n, pooledCpu(n)])) as Partial<Record<ServerName, number | null>>;
    const pooledRatio = (other: ServerName) =>
      pooled.sightline && pooled[other] ? round3(pooled[other] / pooled.sightline) : null;
    const medians = {
      cpuUsPerReq: Object.fromEntries(only.map((n) => [n, medianOf((r) => r[n]?.cpuUsPerReq)])),
      reqPerSec: Object.fromEntries(only.map((n) => [n, medianOf((r) => r[n]?.rps)])),
      p99Ms: Object.fromEntries(only.map((n) => [n, medianOf((r) => r[n]?.p99)])),
      vsFastify: { cpu: medianOf((r) => r.ratios.vsFastify?.cpu), rps: medianOf((r) => r.ratios.vsFastify?.rps) },
      vsFastifySameWriter: {
        cpu: medianOf((r) => r.ratios.vsFastifySameWriter?.cpu),
        rps: medianOf((r) => r.ratios.vsFastifySameWriter?.rps),
      },
      vsBare: { cpu: medianOf((r) => r.ratios.vsBare?.cpu), rps: medianOf((r) => r.ratios.vsBare?.rps) },
    };
    const calibration = [];
    for (const busyUs of CALIBRATE ? [5, 10, 20, 40] : []) {
      const port = String(18085 + calibration.length);
      const busy = await startProcess(['-e', BARE], { PORT: port, BUSY_US: String(busyUs) });
      try {
        await waitFor(`http://127.0.0.1:${port}/`);
        const r = await load(busy, `http://127.0.0.1:${port}/`, {}, 2);
        calibration.push({ busyUsPerRequest: busyUs, ...r });
      } finally {
        busy.kill('SIGTERM');
      }
    }
    const worstSightlineP99 = Math.max(...rounds.map((r) => r.sightline?.p99 ?? 0));
    const result = {
      bench: 'http',
      date: new Date().toISOString().slice(0, 10),
      machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      uptime: execFileSync('uptime', { encoding: 'utf8' }).trim(),
      connections: CONNECTIONS,
      seconds: DURATION,
      rounds: rounds.length,
      medians,
      pooled: {
        cpuUsPerReq: pooled,
        vsFastify: pooledRatio('fastify'),
        vsFastifySameWriter: pooledRatio('fastifySightlineWriter'),
        vsBare: pooledRatio('bare'),
      },
      ...(CALIBRATE ? { bareWithBusyWork: calibration } : {}),
      targets: {
        vsFastifySameWriterCpuAtLeast: 1.1,
        p99UnderMs: 10,
        ratioMet: medians.vsFastifySameWriter.cpu === null ? null : medians.vsFastifySameWriter.cpu >= 1.1,
        p99Met: worstSightlineP99 < 10,
      },
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    for (const { process: child } of Object.values(servers)) child.kill('SIGTERM');
  }
}

runBench(main);
