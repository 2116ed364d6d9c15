import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { LineError, ReaderOptions, ReaderState, TrafficEvent } from './reader.ts';
import type { LogFormat } from './record.ts';

/**
 * A LogReader on a thread of its own (read-worker.ts): the import hands it
 * the log's bytes and gets its events back a batch at a time. Parsing and
 * classifying every line is most of an import's work in Node; on its own
 * thread it runs on one core while the import hashes and writes the batch
 * before on another (and PostgreSQL on whichever is free). At most
 * `CHUNKS_AHEAD` chunks wait for the thread, so memory stays flat.
 */

export interface WorkerInit {
  /** The reader's options; address ranges as rows (a BlockList does not cross threads). */
  options: Omit<ReaderOptions, 'ranges'> & { ranges: { agent: string; prefix: string }[] };
  /** A batch is cut when this many events are pending, or this many lines were read since the last cut. */
  batchEvents: number;
  batchLines: number;
  /** A reader in this thread read the start of the log: go on from there. */
  from?: ReaderState;
}

export type ToReader = { type: 'chunk'; bytes: Uint8Array } | { type: 'end' } | { type: 'flush' };

/** The events read since the last cut, and the reader's totals at the cut. */
export interface ReadCut {
  events: TrafficEvent[];
  lines: number;
  /** Physical lines read through: where a resumed read starts again. */
  lineNo: number;
  skipped: number;
  other: number;
  errors: LineError[];
  formats: LogFormat[];
  final: boolean;
}

interface FromReader {
  type: 'read';
  lines: number;
  cut: ReadCut | null;
}

const CHUNKS_AHEAD = 8;
/** The worker's file, as run: `.ts` from the sources, `.js` from a build. */
const WORKER_URL = new URL(`./read-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export class ThreadedReader {
  /** Lines read so far (the thread's count, as of its last answer). */
  lines = 0;
  private readonly worker: Worker;
  private ahead = 0;
  private wake: (() => void) | null = null;
  private failure: Error | null = null;
  private last: { resolve: (cut: ReadCut) => void; reject: (err: Error) => void } | null = null;
  private done = false;
  private readonly onCut: (cut: ReadCut) => void;

  /** `onCut` gets each batch (not the last, which `finish` answers), in order. */
  constructor(init: WorkerInit, onCut: (cut: ReadCut) => void) {
    this.onCut = onCut;
    this.lines = init.from?.lines ?? 0;
    this.worker = new Worker(WORKER_URL, { workerData: init });
    this.worker.on('message', (m: FromReader) => {
      // Stopped: what the thread read after that is not the import's (a failed run reads it again when retried).
      if (this.done) return;
      this.lines = m.lines;
      if (m.cut?.final) {
        this.last?.resolve(m.cut);
        return;
      }
      if (m.cut) this.onCut(m.cut);
      this.ahead--;
      this.wake?.();
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => {
      if (!this.done) this.fail(new Error(`the log reader's thread stopped (exit code ${code})`));
    });
  }

  /** Hands a chunk to the thread; waits while it has `CHUNKS_AHEAD` unread. */
  async push(chunk: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    // A copy of this chunk's bytes alone, moved to the thread: the source may reuse its buffer, and a view's
    // whole underlying buffer would be copied.
    const bytes = new Uint8Array(chunk);
    this.worker.postMessage({ type: 'chunk', bytes } satisfies ToReader, [bytes.buffer]);
    this.ahead++;
    while (this.ahead >= CHUNKS_AHEAD && !this.failure) await new Promise<void>((resolve) => (this.wake = resolve));
    if (this.failure) throw this.failure;
  }

  /**
   * The last batch: after the end of the log (`end`: a last line without its newline counts), or after the source
   * failed (`flush`: what was read before); the thread then stops.
   */
  async finish(how: 'end' | 'flush'): Promise<ReadCut> {
    if (this.failure) throw this.failure;
    const last = new Promise<ReadCut>((resolve, reject) => (this.last = { resolve, reject }));
    this.worker.postMessage({ type: how } satisfies ToReader);
    try {
      return await last;
    } finally {
      await this.stop();
    }
  }

  async stop(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.worker.terminate();
  }

  private fail(err: Error) {
    if (this.done) return;
    this.failure ??= err;
    this.wake?.();
    this.last?.reject(this.failure);
  }
}
