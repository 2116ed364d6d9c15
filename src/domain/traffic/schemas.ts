import { z } from 'zod';
import { LOG_FORMATS } from '../../logs/record.ts';
import { periodQuerySchema, pagingShape } from '../common/index.ts';

/** Request schemas of crawler traffic (CONTRACT.md "Crawler traffic"). */

/** The most characters of log posted as JSON in one piece; larger logs go in pieces, gzipped, pulled or through the CLI. */
export const CONTENTS_MAX_CHARS = 2_000_000;

const format = z.enum(LOG_FORMATS, { error: `format must be one of ${LOG_FORMATS.join(', ')}` }).default('auto');

// Log contents are data, not a text field: NUL bytes and junk are the parser's to count, so no text() here.
export const crawlerLogPostSchema = z.object({
  contents: z
    .string({ error: 'contents must be the text of a server access log' })
    .min(1, 'contents is empty')
    .max(
      CONTENTS_MAX_CHARS,
      `contents is longer than ${CONTENTS_MAX_CHARS.toLocaleString('en-US')} characters; send the log in pieces, or gzipped as application/gzip`,
    ),
  format,
});
export type CrawlerLogPost = z.output<typeof crawlerLogPostSchema>;

export const crawlerLogPullSchema = z.object({
  url: z
    .string({ error: 'url must be the https address of a log file' })
    .trim()
    .max(2000, 'url is longer than 2,000 characters')
    .refine(
      (u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol),
      'url must be the https address of a log file',
    ),
  format,
});
export type CrawlerLogPull = z.output<typeof crawlerLogPullSchema>;

export const crawlerLogListSchema = z.object({ ...pagingShape(20) });
export type CrawlerLogListQuery = z.output<typeof crawlerLogListSchema>;

export const trafficQuerySchema = periodQuerySchema;
export type TrafficQuery = z.output<typeof trafficQuerySchema>;

/** A gzip body has no JSON to carry its format: it comes in the query (`?format=json`). */
export const crawlerLogPostQuerySchema = z.object({
  format: z.enum(LOG_FORMATS, { error: `format must be one of ${LOG_FORMATS.join(', ')}` }).optional(),
});
