import { parentPort, workerData } from 'node:worker_threads';
import { AddressRanges } from './ranges.ts';
import { LogReader, type ReaderOptions } from './reader.ts';
import type { ReadCut, ToReader, WorkerInit } from './threaded-reader.ts';

/**
 * The log reader's thread (threaded-reader.ts): bytes in, traffic events
 * out, a batch at a time, so an import parses on one core while its batches
 * are hashed and written from the other.
 */

const init = workerData as WorkerInit;
const { ranges, ...rest } = init.options;
const options: ReaderOptions = { ...rest, ranges: new AddressRanges(ranges) };
const reader = new LogReader(options, init.from);
const port = parentPort;
if (!port) throw new Error('read-worker.ts runs as a worker thread');
let linesAtCut = reader.lines;

function cut(final: boolean): ReadCut {
  linesAtCut = reader.lines;
  return {
    events: reader.take(),
    lines: reader.lines,
    lineNo: reader.lineNo,
    skipped: reader.skipped,
    other: reader.other,
    errors: [...reader.errors],
    formats: [...reader.formats],
    final,
  };
}

port.on('message', (message: ToReader) => {
  if (message.type === 'chunk') {
    reader.push(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
    const due = reader.pendingEvents >= init.batchEvents || reader.lines - linesAtCut >= init.batchLines;
    port.postMessage({ type: 'read', lines: reader.lines, cut: due ? cut(false) : null });
    return;
  }
  // The source ended (the last line may lack its newline), or failed: what was read so far is the last batch.
  if (message.type === 'end') reader.end();
  port.postMessage({ type: 'read', lines: reader.lines, cut: cut(true) });
});
