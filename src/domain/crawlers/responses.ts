import { z } from 'zod';
import { count, dateTime, id, named } from '../common/index.ts';

/** Response schemas of crawler checks (see src/domain/common/responses.ts). */

const access = z.enum(['allowed', 'partial', 'blocked']);
const robotsState = z.enum(['found', 'missing', 'unreachable']);
const llmsState = z.enum(['present', 'missing', 'invalid']);

export const crawlerReportResponse = named(
  'CrawlerReport',
  'Per AI crawler, what robots.txt lets it read and the deciding line; llms.txt; the latest check’s own state; the history of finished checks with what changed',
  z.object({
    check: z
      .object({
        id,
        state: z.enum(['queued', 'running', 'done', 'failed']),
        trigger: z.enum(['create', 'manual', 'schedule', 'cli']),
        requestedAt: dateTime,
        startedAt: dateTime.nullable(),
        finishedAt: dateTime.nullable(),
        error: z.string().nullable(),
      })
      .nullable(),
    checkedAt: dateTime.nullable(),
    robots: z
      .object({
        url: z.string().nullable(),
        state: robotsState.nullable(),
        status: z.int().nullable(),
        bytes: count.nullable(),
        note: z.string().nullable(),
      })
      .nullable(),
    crawlers: z.array(
      z.object({
        agent: z.string(),
        company: z.string().nullable(),
        kind: z.enum(['training', 'search', 'user', 'search-engine', 'control']).nullable(),
        purpose: z.string().nullable(),
        access,
        decidingLine: z.object({ line: z.int().positive(), text: z.string() }).nullable(),
        group: z.string().nullable(),
        reason: z.string().nullable(),
      }),
    ),
    llmsTxt: z
      .object({
        state: llmsState.nullable(),
        checkedAt: dateTime.nullable(),
        url: z.string().nullable(),
        status: z.int().nullable(),
        title: z.string().nullable(),
        links: count.nullable(),
        note: z.string().nullable(),
      })
      .nullable(),
    history: z.array(
      z.object({
        id,
        checkedAt: dateTime.nullable(),
        trigger: z.enum(['create', 'manual', 'schedule', 'cli']),
        robots: robotsState.nullable(),
        llmsTxt: llmsState.nullable(),
        allowed: count,
        partial: count,
        blocked: count,
        changes: z.array(z.object({ agent: z.string(), from: access, to: access })),
        llmsTxtChange: z.object({ from: llmsState.nullable(), to: llmsState.nullable() }).nullable(),
      }),
    ),
  }),
);
