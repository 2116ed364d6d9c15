/**
 * bench/cpu-profile: where a profiled bench/scan run's CPU went, per answer.
 * `BENCH_SCAN=one BENCH_CPU_PROF=<dir> node bench/scan.ts`, then
 * `node bench/cpu-profile.ts <dir> [top]`. Reads every .cpuprofile in <dir>
 * (one per thread: the main one, then the analysis threads) and
 * <dir>/windows.json (the measured scans' monotonic windows, which is the
 * clock the samples carry), keeps the samples inside those windows, and
 * prints per thread:
 * - self time by area (the sampled frame's file: our src folders, a package
 *   of node_modules, Node's own modules, GC, native code);
 * - the same with Node's modules and native code counted to the nearest
 *   frame above them that is ours or a package's (a socket write to the
 *   client library that made it);
 * - inclusive time by our source file (each file counted once per sample
 *   whatever its depth), which says which of our steps the time is under;
 * - the top self-time functions;
 * - with a third argument (a regular expression), the stacks under which
 *   the functions it matches ran (BENCH_PROFILE_DEPTH frames up, 6 unless told; by time).
 * Times are sampled wall time while the thread was not idle, in ms per answer
 * stored; on a loaded machine a sample also counts time the thread waited
 * for a core, so read them as shares of the measured CPU.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
interface Windows {
  windows: { startUs: number; endUs: number; answers: number }[];
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: node bench/cpu-profile.ts <dir> [top]');
const top = Number(process.argv[3] ?? 30);
const callersOf = process.argv[4] ? new RegExp(process.argv[4]) : null;
const depth = Number(process.env.BENCH_PROFILE_DEPTH ?? 6);
const { windows } = JSON.parse(readFileSync(path.join(dir, 'windows.json'), 'utf8')) as Windows;
const answers = windows.reduce((s, w) => s + w.answers, 0);
const inWindow = (t: number) => windows.some((w) => t >= w.startUs && t < w.endUs);
const root = path.resolve(import.meta.dirname, '..');

/** A frame's file as read here: a path under the repository, a package, or Node's module name. */
function fileOf(url: string): string {
  if (url === '') return '';
  const p = url.startsWith('file://') ? new URL(url).pathname : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p);
  if (pkg) return `npm:${pkg[1]}`;
  return p.startsWith(root) ? path.relative(root, p) : p;
}

function areaOf(frame: CallFrame): string {
  const file = fileOf(frame.url);
  if (file === '') return frame.functionName.startsWith('(') ? frame.functionName : 'native (V8 builtins, C++)';
  if (file.startsWith('npm:')) return file;
  if (file.startsWith('node:')) {
    const parts = file.replace('node:internal/', 'node:').split('/');
    return parts.slice(0, 2).join('/').replace(/\.js$/, '');
  }
  const parts = file.split('/');
  // src/domain/<feature>, src/<folder>, bench, jobs
  return parts[0] === 'src' && parts[1] === 'domain' ? parts.slice(0, 3).join('/') : parts.slice(0, 2).join('/');
}

/** Not work: the thread waiting (V8's idle marker, an analysis thread blocked for its next task). */
const idle = (frame: CallFrame) =>
  frame.functionName === '(idle)' || (frame.functionName === 'atomicsWaitLoop' && fileOf(frame.url) === 'npm:piscina');

const ours = (file: string) => file.startsWith('src/') || file.startsWith('jobs/');
const libraryOrOurs = (file: string) => ours(file) || file.startsWith('npm:');

function add(map: Map<string, number>, key: string, us: number) {
  map.set(key, (map.get(key) ?? 0) + us);
}

function print(title: string, map: Map<string, number>, total: number, limit: number) {
  console.log(`  ${title}`);
  const rows = [...map].sort((a, b) => b[1] - a[1]).slice(0, limit);
  for (const [key, us] of rows)
    console.log(
      `    ${(us / 1000 / answers).toFixed(4).padStart(8)} ms  ${((us / total) * 100).toFixed(1).padStart(5)}%  ${key}`,
    );
}

const files = readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort();
console.log(`${answers} answers in ${windows.length} measured scans; ms per answer (sampled), share of the thread`);
for (const f of files) {
  const profile = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const area = new Map<string, number>();
  const owner = new Map<string, number>();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const callers = new Map<string, number>();
  let total = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    // A sample stands for the time until the next one.
    const us = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(profile.samples[i] as number);
    if (!node || !inWindow(t) || idle(node.callFrame)) continue;
    total += us;
    const frame = node.callFrame;
    add(area, areaOf(frame), us);
    let by = node;
    while (!libraryOrOurs(fileOf(by.callFrame.url)) && parent.has(by.id))
      by = byId.get(parent.get(by.id) as number) as ProfileNode;
    add(owner, libraryOrOurs(fileOf(by.callFrame.url)) ? areaOf(by.callFrame) : areaOf(frame), us);
    const file = fileOf(frame.url);
    add(self, `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}` : ''}`, us);
    if (callersOf?.test(frame.functionName)) {
      const stack: string[] = [];
      for (let id = parent.get(node.id); id !== undefined && stack.length < depth; id = parent.get(id)) {
        const c = (byId.get(id) as ProfileNode).callFrame;
        stack.push(`${c.functionName || '(anonymous)'} ${fileOf(c.url)}:${c.lineNumber + 1}`);
      }
      add(callers, `${frame.functionName}\n      < ${stack.join('\n      < ')}`, us);
    }
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const fileOnStack = fileOf((byId.get(id) as ProfileNode).callFrame.url);
      if (ours(fileOnStack) && !seen.has(fileOnStack)) {
        seen.add(fileOnStack);
        add(inclusive, fileOnStack, us);
      }
    }
  }
  if (total === 0) continue;
  console.log(`\n${f}: ${(total / 1000 / answers).toFixed(4)} ms per answer sampled in the windows`);
  print('self, by area', area, total, 25);
  print('self, Node and native counted to their caller', owner, total, 25);
  print('inclusive, by our file', inclusive, total, 25);
  print('self, by function', self, total, top);
  if (callersOf) print(`stacks of ${callersOf.source}`, callers, total, 15);
}
