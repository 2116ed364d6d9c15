import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { AppContext } from '../../context.ts';
import { decodeLog, LogDecodeError } from '../../logs/decode.ts';
import { ERRORS_KEPT, LogReader } from '../../logs/reader.ts';
import { withSiteLock, type Busy } from '../common/site-lock.ts';
import { SiteFetchError } from '../../web/fetch-error.ts';
import { siteFetcherFor, type SiteFetcher } from '../../web/site-fetch.ts';
import { findImport } from './imports.ts';
import { addressRanges } from './ranges.ts';
import { settlePendingPeriods, TrafficWriter, type BatchProgress } from './store.ts';

/**
 * The `log-import` job (and `sightline logs import`, in the CLI's process):
 * under the site's traffic lock, stream the log (the posted bytes, the
 * pulled address through the site-fetch guard, or a local file), decode it
 * (gzip by its magic bytes), read it line by line (src/logs) and write its
 * events a batch at a time (store.ts). Memory holds one chunk, one line and
 * two batches whatever the log's size; the loop hands the event loop back
 * every few milliseconds, so an import never stalls the other jobs of its
 * worker. One batch is written while the next is read; week, month and
 * quarter counters are summed over the whole import and written at its end.
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
}

async function* slices(payload: Buffer): AsyncGenerator<Buffer> {
  for (let i = 0; i < payload.length; i += SLICE_BYTES) yield payload.subarray(i, i + SLICE_BYTES);
}

/** A failure the customer can act on: the import ends with it. Anything else is retried by the job. */
function expectedFailure(err: unknown): string | null {
  if (err instanceof LogDecodeError) return err.message;
  if (err instanceof SiteFetchError) return err.kind === 'encoding' ? `${err.message}: a truncated or corrupt gzip file; the lines before were read` : err.message;
  return null;
}

async function logSource(ctx: AppContext, importId: number, options: RunOptions, signal: AbortSignal): Promise<AsyncIterable<Buffer>> {
  if (options.source) return decodeLog(options.source);
  const row = await ctx.db.selectFrom('crawlerLogImports').select(['source', 'payload', 'pullUrl']).where('id', '=', importId).executeTakeFirstOrThrow();
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
      if (!claimed.startedAt) await ctx.db.updateTable('crawlerLogImports').set({ startedAt: now }).where('id', '=', importId).execute();
      const site = await ctx.db.selectFrom('sites').select(['id', 'domain']).where('id', '=', siteId).executeTakeFirst();
      if (!site) return { state: 'skipped' };
      // Imports of this site that stopped with week, month and quarter sums unwritten (this one too, when it is
      // resumed) have them rebuilt: under the site's traffic lock, no other import holds sums in memory.
      const pending = await ctx.db.selectFrom('crawlerLogImports').select('id').where('siteId', '=', siteId).where('rollupsPending', '=', true).execute();
      for (const p of pending) await settlePendingPeriods(ctx, p.id);
      const base = await findImport(ctx, siteId, importId);
      const log = ctx.logger.child({ siteId, importId });

      // Salts and hashes of days no longer kept go first: their requests could not be known again anyway.
      const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
      const oldest = new Date(today - KEEP_DAYS * DAY_MS).toISOString().slice(0, 10);
      await ctx.db.deleteFrom('trafficSeen').where('siteId', '=', siteId).where('day', '<', oldest).execute();
      await ctx.db.deleteFrom('trafficSalts').where('siteId', '=', siteId).where('day', '<', oldest).execute();

      const reader = new LogReader({
        format: base.format,
        ranges: await addressRanges(ctx.db),
        oldest: today - KEEP_DAYS * DAY_MS,
        newest: now.getTime() + DAY_MS,
        windowNote: `dated more than ${KEEP_DAYS} days ago or in the future; not counted`,
        skipThrough: Number(base.resumeLine),
      });
      const writer = new TrafficWriter(ctx, site, importId, base);
      let bytes = 0;
      let linesAtCut = 0;
      let inFlight: Promise<void> | null = null;
      const progress = () => options.onProgress?.({ lines: Number(base.lines) + reader.lines, counted: writer.counted, bytes });
      /** Hands the events read so far to the writer once the batch before is written. */
      const cut = async () => {
        const batch: BatchProgress = {
          events: reader.take(),
          lines: Number(base.lines) + reader.lines,
          skipped: Number(base.skipped) + reader.skipped,
          other: Number(base.other) + reader.other,
          bytes,
          resumeLine: Math.max(Number(base.resumeLine), reader.lineNo),
          errors: [...base.errors, ...reader.errors].slice(0, ERRORS_KEPT),
          formats: [...new Set([...base.formats, ...reader.formats])],
        };
        linesAtCut = reader.lines;
        if (inFlight) await inFlight;
        inFlight = writer.write(batch);
        // Awaited at the next cut or at the end; until then a failure must not be unhandled.
        inFlight.catch(() => undefined);
      };

      let failure: string | null = null;
      try {
        const source = await logSource(ctx, importId, options, lost);
        let lastYield = Date.now();
        for await (const chunk of source) {
          for (let i = 0; i < chunk.length; i += SLICE_BYTES) {
            if (lost.aborted) throw lost.reason;
            const piece = chunk.length > SLICE_BYTES ? chunk.subarray(i, i + SLICE_BYTES) : chunk;
            bytes += piece.length;
            reader.push(piece);
            if (reader.pendingEvents >= BATCH_EVENTS || reader.lines - linesAtCut >= BATCH_LINES) await cut();
            if (Date.now() - lastYield >= YIELD_EVERY_MS) {
              await yieldToLoop();
              lastYield = Date.now();
              progress();
            }
          }
        }
        reader.end();
      } catch (err) {
        failure = expectedFailure(err);
        if (failure === null || lost.aborted) {
          // Retried by the job (or the caller): what was committed stays, the rest is read again.
          await (inFlight as Promise<void> | null)?.catch(() => undefined);
          throw lost.aborted ? (lost.reason as Error) : err;
        }
      }
      // The lines read before a failure count too.
      await cut();
      await inFlight;
      await writer.flushPeriods();
      progress();
      await ctx.db
        .updateTable('crawlerLogImports')
        .set({ status: failure ? 'failed' : 'done', error: failure, finishedAt: ctx.clock.now(), payload: null, pullUrl: null })
        .where('id', '=', importId)
        .execute();
      const summary = {
        lines: Number(base.lines) + reader.lines,
        counted: writer.counted,
        duplicates: writer.duplicates,
        skipped: reader.skipped,
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
