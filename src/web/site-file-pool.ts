import os from 'node:os';
import { Piscina } from 'piscina';
import type { Config } from '../config.ts';
import type { LlmsTxtReading } from './llms-txt.ts';
import { SiteFileError } from './site-file-error.ts';
import type {
  RobotsReading,
  RobotsSource,
  SiteFileKind,
  SiteFileOutput,
  SiteFileTask,
  SiteFileThreadResult,
} from './site-file-thread.ts';
import { SitemapError, type SitemapFile } from './sitemap-parser.ts';

/**
 * Files from customers' sites are parsed on worker threads (./site-file-thread.ts),
 * never on the thread that runs every workspace's jobs: a file a customer
 * controls must not be able to stall other jobs or take the process down.
 * Each parse has a deadline; past it, piscina stops the thread (a task that
 * is still queued is dropped) and the job ends with SiteFileError's message.
 * Each thread has its own heap limit, so a parse that runs away with memory
 * kills its thread, not the process. The parsers are bounded themselves
 * (docs/site-intelligence.md "Hostile files"); this is the second line.
 *
 * One pool per process, the context's (`siteFilePool` in src/context.ts:
 * made on first use, closed with the context); its threads start with the
 * first file and leave when idle (a worker that reads no site keeps none).
 */

/** A thread's heap: a 50 MB sitemap's entries need well under it. */
export const PARSE_THREAD_HEAP_MB = 256;

export interface SiteFilePoolOptions {
  maxThreads?: number;
  /** Old-generation heap per thread (resourceLimits.maxOldGenerationSizeMb). */
  heapMb?: number;
}

export interface SiteFilePool {
  /** Runs one task; `file` names what is read in the error a customer sees. */
  run<K extends SiteFileKind>(
    task: Extract<SiteFileTask, { kind: K }>,
    options: { file: string; deadlineMs: number; transfer?: ArrayBuffer },
  ): Promise<SiteFileOutput<K>>;
  close(): Promise<void>;
}

const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);

export function createSiteFilePool(options: SiteFilePoolOptions = {}): SiteFilePool {
  const heapMb = options.heapMb ?? PARSE_THREAD_HEAP_MB;
  let pool: Piscina | null = null;
  const start = (): Piscina => {
    if (pool) return pool;
    pool = new Piscina({
      filename: new URL('./site-file-thread.ts', import.meta.url).href,
      minThreads: 0,
      maxThreads: options.maxThreads ?? Math.max(1, Math.min(2, os.availableParallelism() - 1)),
      idleTimeout: 10_000,
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    });
    // A thread that dies between tasks is replaced on the next one; the tasks it ran reject on their own.
    pool.on('error', () => undefined);
    return pool;
  };
  return {
    async run(task, { file, deadlineMs, transfer }) {
      let result: SiteFileThreadResult;
      try {
        result = (await start().run(task, {
          signal: AbortSignal.timeout(deadlineMs),
          ...(transfer && { transferList: [transfer] }),
        })) as SiteFileThreadResult;
      } catch (err) {
        if ((err as Error).name === 'AbortError')
          throw new SiteFileError(
            'timeout',
            file,
            `${file} took too long to read (over ${duration(deadlineMs)}); it was not used`,
          );
        if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY')
          throw new SiteFileError(
            'memory',
            file,
            `${file} needs more memory to read than allowed (${heapMb} MB); it was not used`,
          );
        throw err;
      }
      if (!result.ok) throw new SitemapError(result.sitemapError);
      return result.value as SiteFileOutput<typeof task.kind>;
    },
    async close() {
      const current = pool;
      pool = null;
      await current?.destroy();
    },
  };
}

/** The parsers jobs call, each on a parsing thread with the deployment's deadline. */
export interface SiteFileReader {
  /** Sitemaps, notes and the access of each of `agents`. */
  robots(robots: RobotsSource, agents: string[]): Promise<RobotsReading>;
  /** Whether `agent` may read each of `urls`, in order. */
  robotsAllows(robots: RobotsSource, agent: string, urls: string[]): Promise<boolean[]>;
  llmsTxt(text: string, contentType: string | null): Promise<LlmsTxtReading>;
  /** Takes `bytes` (they are handed to the thread: unusable here after the call). */
  sitemap(url: string, bytes: Uint8Array): Promise<SitemapFile>;
  /** The title of a page's first bytes; takes `bytes` as sitemap does. */
  title(url: string, bytes: Uint8Array): Promise<string | null>;
}

export function createSiteFileReader(options: { deadlineMs: number; pool: SiteFilePool }): SiteFileReader {
  const { deadlineMs, pool } = options;
  return {
    robots: (robots, agents) => pool.run({ kind: 'robots', robots, agents }, { file: 'robots.txt', deadlineMs }),
    robotsAllows: (robots, agent, urls) =>
      pool.run({ kind: 'robots-allows', robots, agent, urls }, { file: 'robots.txt', deadlineMs }),
    llmsTxt: (text, contentType) => pool.run({ kind: 'llms-txt', text, contentType }, { file: 'llms.txt', deadlineMs }),
    sitemap: (url, bytes) =>
      pool.run({ kind: 'sitemap', url, bytes }, { file: url, deadlineMs, transfer: ownBuffer(bytes) }),
    title: (url, bytes) => pool.run({ kind: 'title', bytes }, { file: url, deadlineMs, transfer: ownBuffer(bytes) }),
  };
}

/** The buffer to hand over, when `bytes` is all of it (a Buffer from Node's pool is shared with others: it is copied). */
function ownBuffer(bytes: Uint8Array): ArrayBuffer | undefined {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
    ? bytes.buffer
    : undefined;
}

/** The reader with the deployment's deadline, on the process's pool (the context's `siteFilePool()`). */
export const siteFileReaderFor = (config: Config, pool: SiteFilePool): SiteFileReader =>
  createSiteFileReader({ deadlineMs: config.siteFetch.parseTimeoutMs, pool });
