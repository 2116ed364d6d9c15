import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { CrawlerLogImportRow, SiteRow } from '../../db/schema.ts';
import { BadRequestError, NotFoundError, RateLimitedError } from '../../errors.ts';
import type { LogFormatChoice } from '../../logs/record.ts';
import { waitFor } from '../common/index.ts';
import type { CrawlerLogListQuery, CrawlerLogPull } from './schemas.ts';

/**
 * Log import records: a posted piece (JSON text or a gzip file), a pull
 * from an https address, or a file the CLI streams. Posted bytes and a
 * pull's full address wait in the record for the `log-import` job and are
 * dropped when it ends. At most `PENDING_MAX` imports of a site wait at
 * once, so a client posting in a loop cannot pile up bodies faster than
 * they are read.
 */

export const PENDING_MAX = 20;
/**
 * A running import with no progress for this long has lost its process (a
 * CLI stopped; a worker's job would have been retried long before), and a
 * queued one this long has lost its job (Redis lost it): the next request
 * marks them failed, so they stop counting as waiting.
 */
const STALE_RUNNING_MS = 60 * 60 * 1000;
const STALE_QUEUED_MS = 24 * 60 * 60 * 1000;

/** Every column but the bytes waiting for the job. */
const COLUMNS = [
  'id',
  'siteId',
  'status',
  'source',
  'format',
  'formats',
  'url',
  'bytes',
  'lines',
  'counted',
  'duplicates',
  'skipped',
  'other',
  'agentHits',
  'referrals',
  'firstDay',
  'lastDay',
  'errors',
  'error',
  'resumeLine',
  'requestedBy',
  'requestedAt',
  'startedAt',
  'progressedAt',
  'finishedAt',
] as const;
export type LogImportRecord = Pick<CrawlerLogImportRow, (typeof COLUMNS)[number]>;

export function serializeLogImport(row: LogImportRecord) {
  return {
    id: row.id,
    state: row.status,
    source: row.source,
    format: row.format,
    formats: row.formats as ('combined' | 'json')[],
    url: row.url,
    bytes: Number(row.bytes),
    lines: Number(row.lines),
    counted: Number(row.counted),
    duplicates: Number(row.duplicates),
    skipped: Number(row.skipped),
    other: Number(row.other),
    agentHits: Number(row.agentHits),
    referrals: Number(row.referrals),
    firstDay: row.firstDay,
    lastDay: row.lastDay,
    errors: row.errors,
    error: row.error,
    requestedAt: row.requestedAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}
export type LogImportView = ReturnType<typeof serializeLogImport>;

export async function findLogImport(ctx: AppContext, siteId: number, importId: number): Promise<LogImportRecord> {
  const row = await ctx.db
    .selectFrom('crawlerLogImports')
    .select(COLUMNS)
    .where('id', '=', importId)
    .where('siteId', '=', siteId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No log import with id ${importId}`);
  return row;
}

export async function latestLogImport(ctx: AppContext, siteId: number): Promise<LogImportRecord | null> {
  return (
    (await ctx.db
      .selectFrom('crawlerLogImports')
      .select(COLUMNS)
      .where('siteId', '=', siteId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst()) ?? null
  );
}

/** A pull's address as shown and stored for display: no query or fragment (a presigned URL's signature is a credential), no user info. */
export function shownUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

async function failStale(ctx: AppContext, siteId: number): Promise<void> {
  const now = ctx.clock.now().getTime();
  const stale = (status: 'queued' | 'running', since: number, error: string) =>
    ctx.db
      .updateTable('crawlerLogImports')
      .set({ status: 'failed', error, finishedAt: ctx.clock.now(), payload: null, pullUrl: null })
      .where('siteId', '=', siteId)
      .where('status', '=', status)
      .where(sql<Date>`coalesce(progressed_at, started_at, requested_at)`, '<', new Date(now - since))
      .execute();
  await stale(
    'running',
    STALE_RUNNING_MS,
    'stopped: no progress for an hour (its process stopped); the lines before were counted',
  );
  await stale(
    'queued',
    STALE_QUEUED_MS,
    'never started: its job was lost; send the log again (lines already counted count once)',
  );
}

interface NewImport {
  source: 'upload' | 'pull' | 'cli';
  format: LogFormatChoice;
  payload?: Buffer;
  pullUrl?: string;
}

/** Makes an import record; a queued one gets its job, a CLI one runs in the caller's process. */
export async function createLogImport(
  ctx: AppContext,
  siteId: number,
  userId: number | null,
  input: NewImport,
): Promise<LogImportRecord> {
  await failStale(ctx, siteId);
  if (input.source !== 'cli') {
    const waiting = await ctx.db
      .selectFrom('crawlerLogImports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', siteId)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirstOrThrow();
    if (Number(waiting.n) >= PENDING_MAX)
      throw new RateLimitedError(
        `${PENDING_MAX} log imports of this project are waiting to be read; send more when they are done`,
        10,
      );
  }
  const now = ctx.clock.now();
  const row = await ctx.db
    .insertInto('crawlerLogImports')
    .values({
      siteId,
      source: input.source,
      format: input.format,
      status: input.source === 'cli' ? 'running' : 'queued',
      payload: input.payload ?? null,
      pullUrl: input.pullUrl ?? null,
      url: input.pullUrl ? shownUrl(input.pullUrl) : null,
      requestedBy: userId,
      requestedAt: now,
      ...(input.source === 'cli' && { startedAt: now, progressedAt: now }),
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
  if (input.source === 'cli') return row;
  try {
    await ctx.jobs.enqueue('log-import', { siteId, importId: row.id }, { jobId: `log-import-${row.id}` });
  } catch (err) {
    // Not left queued with no job: it would count as waiting for an hour.
    await ctx.db
      .updateTable('crawlerLogImports')
      .set({
        status: 'failed',
        error: 'the job queue was unavailable',
        finishedAt: ctx.clock.now(),
        payload: null,
        pullUrl: null,
      })
      .where('id', '=', row.id)
      .execute();
    throw err;
  }
  return row;
}

const isFinal = (v: { state: string }) => v.state === 'done' || v.state === 'failed';

async function answer(ctx: AppContext, siteId: number, importId: number) {
  return {
    import: await waitFor(
      async () => serializeLogImport(await findLogImport(ctx, siteId, importId)),
      isFinal,
      ctx.config.siteFetch.jobWaitMs,
    ),
  };
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** POST /projects/:id/crawler-logs: a piece of log, as JSON text or a gzip file; answers the import when it ends within a few seconds, else its progress. */
export async function postCrawlerLog(
  ctx: AppContext,
  site: SiteRow,
  userId: number,
  input: { contents: string; format: LogFormatChoice } | { gzip: Buffer; format: LogFormatChoice },
) {
  let payload: Buffer;
  if ('gzip' in input) {
    if (input.gzip.length < 2 || input.gzip[0] !== GZIP_MAGIC[0] || input.gzip[1] !== GZIP_MAGIC[1])
      throw new BadRequestError('The body sent as application/gzip is not a gzip file');
    payload = input.gzip;
  } else payload = Buffer.from(input.contents, 'utf8');
  const row = await createLogImport(ctx, site.id, userId, { source: 'upload', format: input.format, payload });
  return answer(ctx, site.id, row.id);
}

/** POST /projects/:id/crawler-logs/pull: the job fetches an https log (gzip allowed) through the site-fetch guard. */
export async function pullCrawlerLog(ctx: AppContext, site: SiteRow, userId: number, input: CrawlerLogPull) {
  const row = await createLogImport(ctx, site.id, userId, { source: 'pull', format: input.format, pullUrl: input.url });
  return answer(ctx, site.id, row.id);
}

/** GET /projects/:id/crawler-logs: the site's imports, newest first. */
export async function listCrawlerLogs(ctx: AppContext, site: SiteRow, query: CrawlerLogListQuery) {
  const [rows, total] = await Promise.all([
    ctx.db
      .selectFrom('crawlerLogImports')
      .select(COLUMNS)
      .where('siteId', '=', site.id)
      .orderBy('id', 'desc')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
    ctx.db
      .selectFrom('crawlerLogImports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .executeTakeFirstOrThrow(),
  ]);
  return { imports: rows.map(serializeLogImport), total: Number(total.n), page: query.page, perPage: query.perPage };
}

/** Marks an import failed once its job has used its last attempt; what it committed stays counted. */
export async function failLogImport(ctx: AppContext, importId: number, message: string): Promise<void> {
  await ctx.db
    .updateTable('crawlerLogImports')
    .set({ status: 'failed', error: message, finishedAt: ctx.clock.now(), payload: null, pullUrl: null })
    .where('id', '=', importId)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}
