import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { AppContext } from '../../context.ts';
import { decodeLog, LogDecodeError } from '../../logs/decode.ts';
import { ERRORS_KEPT } from '../../logs/reader.ts';
import { BatchReader } from '../../logs/batch-reader.ts';
import type { ReadCut } from '../../logs/threaded-reader.ts';
import { withSiteLock, type Busy } from '../common/index.ts';
import { SiteFetchError } from '../../web/fetch-error.ts';
import { siteFetcherFor, type SiteFetcher } from '../../web/site-fetch.ts';
import { findLogImport } from './log-imports.ts';
import { addressRangeRows } from './ranges.ts';
import { settlePendingPeriods, TrafficWriter, type BatchProgress } from './store.ts';

/**
 * The `log-import` job (and `sightline logs import`, in the CLI's process):
 * under the site's traffic lock, stream the log (the posted bytes, the
 * pulled address through the site-fetch guard, or a local file), decode it
 * (gzip by its magic bytes), read it line by line (src/logs) and write its
 * events a batch at a time (store.ts), in order. Past its first 16 MB a log
 * is parsed on a reader thread (src/logs/batch-reader.ts) while this thread
 * hashes and writes the batch before. Memory holds a few chunks, one line
 * and two batches whatever the log's size; the loop hands the event loop
 * back every few milliseconds, so an import never stalls the other jobs of
 * its worker. Week, month and quarter counters per agent and assistant are
 * summed over the whole import and written at its end, with the summaries.
 *
 * A line that does not parse is counted and skipped. A log that cannot be
 * read on (a truncated gzip file, an address the guard refuses, a timeout)
 * ends the import `failed` with its message, the lines read before counted.
 * A retried job starts after the lines whose counts were committed.
 */

/** Events per batch written, and lines read at most between two writes (progress and the resume point). */
export const BATCH_EVENTS = 20_000;
const BATCH_LINES = 200_000;
/** Bytes handed to the reader at once: a posted 4 MB body is read in slices like a stream. */
const SLICE_BYTES = 256 * 1024;
const YIELD_EVERY_MS = 20;
/** Requests dated this many days back at most are counted, and known again: salts and hashes of older days are deleted. */
export const KEEP_DAYS = 400;
/** Decoded bytes read from one posted piece (a 4 MB gzip body can hold a lot) and from one pull. */
const UPLOAD_MAX_BYTES = 2 ** 30;
const PULL_MAX_BYTES = 20 * 2 ** 30;
/** A pull streams while it is read: its whole answer may take this long (SITE_FETCH_TIMEOUT_MS is for small files). */
const PULL_TIMEOUT_MS = 30 * 60_000;
const DAY_MS = 86_400_000;

export interface LogImportProgress {
  lines: number;
  counted: number;
  bytes: number;
}

export interface RunOptions {
  /** The log's bytes (the CLI's file); else the import's own posted bytes or pull. */
  source?: AsyncIterable<Buffer>;
  fetcher?: SiteFetcher;
  onProgress?: (p: LogImportProgress) => void;
  /** Bytes read in this thread before a reader thread takes the rest (batch-reader.ts); tests lower it. */
  threadAfterBytes?: number;
}

async function* slices(payload: Buffer): AsyncGenerator<Buffer> {
  for (let i = 0; i < payload.length; i += SLICE_BYTES) yield payload.subarray(i, i + SLICE_BYTES);
}

/** A failure the customer can act on: the import ends with it. Anything else is retried by the job. */
function expectedFailure(err: unknown): string | null {
  if (err instanceof LogDecodeError) return err.message;
  if (err instanceof SiteFetchError)
    return err.kind === 'encoding'
      ? `${err.message}: a truncated or corrupt gzip file; the lines before were read`
      : err.message;
  return null;
}

async function logSource(
  ctx: AppContext,
  importId: number,
  options: RunOptions,
  signal: AbortSignal,
): Promise<AsyncIterable<Buffer>> {
  if (options.source) return decodeLog(options.source);
  const row = await ctx.db
    .selectFrom('crawlerLogImports')
    .select(['source', 'payload', 'pullUrl'])
    .where('id', '=', importId)
    .executeTakeFirstOrThrow();
  if (row.source === 'pull' && row.pullUrl) {
    const fetcher = options.fetcher ?? siteFetcherFor(ctx.config, ctx.logger);
    const res = await fetcher.get(row.pullUrl, {
      maxBytes: PULL_MAX_BYTES,
      gunzipFiles: true,
      downloadMs: PULL_TIMEOUT_MS,
      accept: 'text/plain, application/x-ndjson, application/json, application/gzip;q=0.9, */*;q=0.5',
      signal,
    });
    if (res.status !== 200) {
      res.discard();
      throw new SiteFetchError('network', res.url, `the log address answered ${res.status}, not 200`);
    }
    return res.body();
  }
  if (row.payload) return decodeLog(slices(row.payload), { maxBytes: UPLOAD_MAX_BYTES });
  throw new LogDecodeError('nothing to read: the import has no log (it was read before, or never sent)');
}

export async function runLogImport(
  ctx: AppContext,
  siteId: number,
  importId: number,
  options: RunOptions = {},
): Promise<{ state: 'done' | 'failed' | 'skipped'; error?: string } | Busy> {
  return withSiteLock(
    ctx,
    siteId,
    async (lost) => {
      const started = Date.now();
      const now = ctx.clock.now();
      const claimed = await ctx.db
        .updateTable('crawlerLogImports')
        .set({ status: 'running', progressedAt: now })
        .where('id', '=', importId)
        .where('siteId', '=', siteId)
        .where('status', 'in', ['queued', 'running'])
        .returning('startedAt')
        .executeTakeFirst();
      if (!claimed) return { state: 'skipped' };
      if (!claimed.startedAt)
        await ctx.db.updateTable('crawlerLogImports').set({ startedAt: now }).where('id', '=', importId).execute();
      const site = await ctx.db
        .selectFrom('sites')
        .select(['id', 'domain'])
        .where('id', '=', siteId)
        .executeTakeFirst();
      if (!site) return { state: 'skipped' };
      // Imports of this site that stopped with week, month and quarter sums unwritten (this one too, when it is
      // resumed) have them rebuilt: under the site's traffic lock, no other import holds sums in memory.
      const pending = await ctx.db
        .selectFrom('crawlerLogImports')
        .select('id')
        .where('siteId', '=', siteId)
        .where('rollupsPending', '=', true)
        .execute();
      for (const p of pending) await settlePendingPeriods(ctx, p.id);
      const base = await findLogImport(ctx, siteId, importId);
      const log = ctx.logger.child({ siteId, importId });

      // Salts and hashes of days no longer kept go first: their requests could not be known again anyway.
      const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
      const oldest = new Date(today - KEEP_DAYS * DAY_MS).toISOString().slice(0, 10);
      await ctx.db.deleteFrom('trafficSeen').where('siteId', '=', siteId).where('day', '<', oldest).execute();
      await ctx.db.deleteFrom('trafficSalts').where('siteId', '=', siteId).where('day', '<', oldest).execute();

      const writer = new TrafficWriter(ctx, site, importId, base);
      let bytes = 0;
      let lines = 0;
      /** Batches handed to the writer and not yet committed, oldest first; each is written after the one before. */
      const writes: Promise<void>[] = [];
      let lastRead: ReadCut | null = null;
      const progress = () =>
        options.onProgress?.({ lines: Number(base.lines) + lines, counted: writer.counted, bytes });
      const write = (read: ReadCut) => {
        lastRead = read;
        lines = read.lines;
        const batch: BatchProgress = {
          events: read.events,
          lines: Number(base.lines) + read.lines,
          skipped: Number(base.skipped) + read.skipped,
          other: Number(base.other) + read.other,
          bytes,
          resumeLine: Math.max(Number(base.resumeLine), read.lineNo),
          errors: [...base.errors, ...read.errors].slice(0, ERRORS_KEPT),
          formats: [...new Set([...base.formats, ...read.formats])],
        };
        const written = (writes.at(-1) ?? Promise.resolve()).then(() => writer.write(batch));
        writes.push(written);
        // Awaited by the loop or at the end; until then a failure must not be unhandled.
        const settled = () => void writes.shift();
        written.then(settled, settled);
      };
      const reader = new BatchReader(
        {
          options: {
            format: base.format,
            ranges: await addressRangeRows(ctx.db),
            oldest: today - KEEP_DAYS * DAY_MS,
            newest: now.getTime() + DAY_MS,
            windowNote: `dated more than ${KEEP_DAYS} days ago or in the future; not counted`,
            skipThrough: Number(base.resumeLine),
          },
          batchEvents: BATCH_EVENTS,
          batchLines: BATCH_LINES,
        },
        write,
        options.threadAfterBytes,
      );
      /** Every write before the last, settled: a failed one throws. */
      const written = async () => {
        while (writes.length > 0) await writes[0];
      };

      let failure: string | null = null;
      try {
        try {
          const source = await logSource(ctx, importId, options, lost);
          let lastYield = Date.now();
          for await (const chunk of source) {
            for (let i = 0; i < chunk.length; i += SLICE_BYTES) {
              if (lost.aborted) throw lost.reason;
              const piece = chunk.length > SLICE_BYTES ? chunk.subarray(i, i + SLICE_BYTES) : chunk;
              bytes += piece.length;
              await reader.push(piece);
              // One batch written, one waiting: the reader waits for the database past that, so memory stays flat.
              while (writes.length >= 2) await writes[0];
              if (Date.now() - lastYield >= YIELD_EVERY_MS) {
                // Read in this thread (the start of a log), a piece must not stall the worker's other jobs.
                await yieldToLoop();
                lastYield = Date.now();
                lines = reader.lines;
                progress();
              }
            }
          }
          write(await reader.finish('end'));
        } catch (err) {
          failure = expectedFailure(err);
          if (failure === null || lost.aborted) {
            // Retried by the job (or the caller): what was committed stays, the rest is read again. The reader
            // stops first, so no batch is handed to the writer once this run has given up.
            await reader.stop();
            await Promise.allSettled(writes);
            throw lost.aborted ? (lost.reason as Error) : err;
          }
          // The lines read before a failure count too.
          write(await reader.finish('flush'));
        }
      } finally {
        await reader.stop();
      }
      await written();
      await writer.flushPeriods();
      progress();
      await ctx.db
        .updateTable('crawlerLogImports')
        .set({
          status: failure ? 'failed' : 'done',
          error: failure,
          finishedAt: ctx.clock.now(),
          payload: null,
          pullUrl: null,
        })
        .where('id', '=', importId)
        .execute();
      const summary = {
        lines: Number(base.lines) + lines,
        counted: writer.counted,
        duplicates: writer.duplicates,
        skipped: (lastRead as ReadCut | null)?.skipped ?? 0,
        bytes,
        ms: Date.now() - started,
      };
      if (failure) log.warn({ ...summary, reason: failure }, 'log import failed');
      else log.info(summary, 'log import done');
      return failure ? { state: 'failed', error: failure } : { state: 'done' };
    },
    'traffic',
  );
}
