import { AddressRanges } from './ranges.ts';
import { LogReader } from './reader.ts';
import { ThreadedReader, type ReadCut, type WorkerInit } from './threaded-reader.ts';

/**
 * Reads a log into batches of events for the import: in this thread at
 * first, and on a thread of its own (threaded-reader.ts) once the log has
 * proved large, handing it the place it reached. A small log (a posted
 * piece, the demo's) never pays for starting a thread; a large one is
 * parsed on one core while its batches are hashed and written from
 * another.
 */

/** Bytes read in this thread before the rest of the log goes to a reader thread. */
export const THREAD_AFTER_BYTES = 16 * 2 ** 20;

export class BatchReader {
  private local: LogReader | null;
  private thread: ThreadedReader | null = null;
  private bytes = 0;
  private linesAtCut = 0;
  private readonly init: WorkerInit;
  private readonly onCut: (cut: ReadCut) => void;

  private readonly threadAfter: number;

  /** `onCut` gets each batch but the last (which `finish` answers), in order. */
  constructor(init: WorkerInit, onCut: (cut: ReadCut) => void, threadAfterBytes = THREAD_AFTER_BYTES) {
    this.init = init;
    this.onCut = onCut;
    this.threadAfter = threadAfterBytes;
    this.local = new LogReader({ ...init.options, ranges: rangesOf(init) }, init.from);
    this.linesAtCut = this.local.lines;
  }

  /** Lines read so far. */
  get lines(): number {
    return this.local ? this.local.lines : (this.thread?.lines ?? 0);
  }

  async push(chunk: Buffer): Promise<void> {
    if (this.thread) return this.thread.push(chunk);
    const local = this.local as LogReader;
    local.push(chunk);
    this.bytes += chunk.length;
    const due = local.pendingEvents >= this.init.batchEvents || local.lines - this.linesAtCut >= this.init.batchLines;
    if (due || this.bytes >= this.threadAfter) this.onCut(this.cut(false));
    if (this.bytes >= this.threadAfter) {
      this.thread = new ThreadedReader({ ...this.init, from: local.state() }, this.onCut);
      this.local = null;
    }
  }

  async finish(how: 'end' | 'flush'): Promise<ReadCut> {
    if (this.thread) return this.thread.finish(how);
    if (how === 'end') this.local?.end();
    return this.cut(true);
  }

  async stop(): Promise<void> {
    this.local = null;
    await this.thread?.stop();
  }

  private cut(final: boolean): ReadCut {
    const local = this.local as LogReader;
    this.linesAtCut = local.lines;
    return {
      events: local.take(),
      lines: local.lines,
      lineNo: local.lineNo,
      skipped: local.skipped,
      other: local.other,
      errors: [...local.errors],
      formats: [...local.formats],
      final,
    };
  }
}

function rangesOf(init: WorkerInit) {
  return new AddressRanges(init.options.ranges);
}
