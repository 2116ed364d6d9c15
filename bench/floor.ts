/**
 * bench/floor: what each part of storing an answer costs, by taking parts
 * away (issue 30, item 2). bench/scan's one-provider case (500 prompts, one
 * provider, 0 ms; BENCH_SCAN=one) runs in a throwaway copy of this tree's
 * HEAD with bench/floor.patch applied: switches, read from the environment,
 * that leave a part out. The product never has them; the copy is removed at
 * the end. Variants, run in turn for BENCH_ROUNDS rounds (default 3), each
 * the median of five scans after one warm-up scan (BENCH_WARMUP):
 *
 * - `full`: the copy as it is (the switches all off).
 * - `no-rollups`: answers and their facts stored, no rollup written
 *   (FLOOR_ROLLUPS=none): the database's floor.
 * - `no-prompt-sources`: every rollup but rollup_prompt_source_period
 *   (FLOOR_SKIP=promptSource).
 * - `no-prompt-quarters`: the tables keyed by prompt without their quarter
 *   rows (FLOOR_NO_QUARTER=1), as if a quarter were read as its three months.
 * - `ask`: the worker asks, reads and reserves money, and stores nothing
 *   (FLOOR_WORKER=ask): the worker's floor.
 * - `ask-analyse`: the same, and each answer analysed on its thread
 *   (FLOOR_WORKER=analyse).
 *
 * Prints each run's medians (worker and Postgres CPU per answer) and each
 * variant's median over the rounds. A patch that no longer applies fails the
 * run: remake it from the lines it names. Database: BENCH_DATABASE_URL
 * (sightline_bench_floor by default).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBench } from './lib.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench_floor';

const VARIANTS: Record<string, Record<string, string>> = {
  full: {},
  'no-rollups': { FLOOR_ROLLUPS: 'none' },
  'no-prompt-sources': { FLOOR_SKIP: 'promptSource' },
  'no-prompt-quarters': { FLOOR_NO_QUARTER: '1' },
  ask: { FLOOR_WORKER: 'ask' },
  'ask-analyse': { FLOOR_WORKER: 'analyse' },
};

interface Medians {
  workerCpuMsPerAnswer: number;
  postgresCpuMsPerAnswer: number;
  totalCpuMsPerAnswer: number;
  answersPerSecond: number;
}

function scanIn(copy: string, env: Record<string, string>): Medians {
  const r = spawnSync(process.execPath, [path.join(copy, 'bench/scan.ts')], {
    cwd: copy,
    env: { ...process.env, ...env, BENCH_SCAN: 'one', BENCH_DATABASE_URL: DATABASE_URL },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`bench/scan failed in the copy:\n${r.stderr}`);
  return (JSON.parse(r.stdout) as { latency0msOneProvider: { medians: Medians } }).latency0msOneProvider.medians;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main() {
  const copy = mkdtempSync(path.join(os.tmpdir(), 'sightline-floor-'));
  execFileSync('git', ['worktree', 'add', '--detach', '--force', copy, 'HEAD'], { cwd: root, stdio: 'ignore' });
  try {
    execFileSync('git', ['apply', path.join(root, 'bench/floor.patch')], { cwd: copy, stdio: 'inherit' });
    symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'));
    const runs: Record<string, Medians[]> = Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, env] of Object.entries(VARIANTS)) {
        const m = scanIn(copy, env);
        runs[name]?.push(m);
        console.error(
          `round ${round}, ${name}: worker ${m.workerCpuMsPerAnswer} ms, Postgres ${m.postgresCpuMsPerAnswer} ms an answer (load average ${os.loadavg()[0]?.toFixed(1)})`,
        );
      }
    }
    console.log(
      JSON.stringify(
        {
          bench: 'floor',
          date: new Date().toISOString().slice(0, 10),
          machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
          rounds: ROUNDS,
          // Each variant's median over the rounds of its runs' medians, ms of CPU an answer.
          variants: Object.fromEntries(
            Object.entries(runs).map(([name, ms]) => [
              name,
              {
                workerCpuMsPerAnswer: median(ms.map((m) => m.workerCpuMsPerAnswer)),
                postgresCpuMsPerAnswer: median(ms.map((m) => m.postgresCpuMsPerAnswer)),
                workerRuns: ms.map((m) => m.workerCpuMsPerAnswer),
                postgresRuns: ms.map((m) => m.postgresCpuMsPerAnswer),
              },
            ]),
          ),
        },
        null,
        2,
      ),
    );
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', copy], { cwd: root, stdio: 'ignore' });
    rmSync(copy, { recursive: true, force: true });
  }
}

runBench(main);
