import { z } from 'zod';
import { count, dateTime, day, id, named, percent, periodEcho } from '../common/index.ts';

/** Response schemas of crawler traffic (see src/domain/common/responses.ts). */

const format = z.enum(['auto', 'combined', 'json']);

export const crawlerLogImport = named(
  'CrawlerLogImport',
  'An import of a server access log: its state and what it read. lines = counted + duplicates + skipped + other when each line holds one entry',
  z.object({
    id,
    state: z.enum(['queued', 'running', 'done', 'failed']),
    source: z.enum(['upload', 'pull', 'cli']),
    format,
    formats: z.array(z.enum(['combined', 'json'])).describe('The formats its lines were read in'),
    url: z.string().nullable().describe('A pull’s address, without its query'),
    bytes: count.describe('Bytes read, decompressed'),
    lines: count,
    counted: count.describe('AI agent hits and assistant referrals counted by this import'),
    duplicates: count.describe('Hits and referrals an earlier import (or an earlier line) had counted already'),
    skipped: count.describe('Lines that are not a log entry, or dated outside the days kept'),
    other: count.describe(
      'Entries that are neither: people not sent by an assistant, other bots; nothing of them is kept',
    ),
    agentHits: count,
    referrals: count,
    firstDay: day.nullable(),
    lastDay: day.nullable(),
    errors: z
      .array(z.object({ line: z.int().positive(), reason: z.string() }))
      .describe('The first lines skipped, with why'),
    error: z.string().nullable(),
    requestedAt: dateTime,
    startedAt: dateTime.nullable(),
    finishedAt: dateTime.nullable(),
  }),
);

export const crawlerLogImportResponse = named(
  'CrawlerLogImportResponse',
  'The import: done when it finished within a few seconds, else its progress',
  z.object({ import: crawlerLogImport }),
);

export const crawlerLogImportList = named(
  'CrawlerLogImportList',
  'The site’s log imports, newest first',
  z.object({ imports: z.array(crawlerLogImport), total: count, page: z.int().positive(), perPage: z.int().positive() }),
);

const status = z
  .object({ ok: count, redirect: count, clientError: count, serverError: count })
  .describe('Hits by status class: 2xx, 3xx, 4xx, 5xx');
const verifiedShare = {
  verified: percent.describe(
    'Of the hits checked against the agent’s published address ranges, the share from inside them; null when none was checked',
  ),
  verifiedLow: percent,
  verifiedHigh: percent,
  checked: count.describe('Hits checked against published ranges'),
  spoofed: count.describe('Hits claiming the agent from outside its published ranges'),
};
const pageRef = {
  path: z.string(),
  url: z.string().describe('The page’s normalized URL, as pages and citations are matched'),
};

export const crawlerTraffic = named(
  'CrawlerTraffic',
  'What AI agents read of the site in a period, by agent, page and status class; the visits assistants sent; and the join with pages and citations',
  z.object({
    ...periodEcho,
    totals: z.object({ hits: count, pages: count, referrals: count, ...verifiedShare }),
    agents: z.array(
      z.object({
        agent: z.string(),
        company: z.string().nullable(),
        kind: z.enum(['training', 'search', 'user', 'search-engine', 'control']).nullable(),
        hits: count,
        pages: count.describe('Distinct pages it fetched'),
        ...verifiedShare,
        status,
        topPages: z.array(z.object({ ...pageRef, hits: count, status })),
      }),
    ),
    statusPages: z
      .array(
        z.object({
          ...pageRef,
          title: z.string().nullable(),
          hits: count,
          redirect: count,
          clientError: count,
          serverError: count,
        }),
      )
      .describe('Pages that served AI agents redirects or errors, errors first'),
    referrals: z.object({
      visits: count,
      assistants: z.array(
        z.object({
          assistant: z.string(),
          company: z.string().nullable(),
          visits: count,
          pages: z.array(z.object({ ...pageRef, visits: count })),
        }),
      ),
      pages: z.array(
        z.object({
          ...pageRef,
          title: z.string().nullable(),
          visits: count,
          assistants: z.array(z.object({ assistant: z.string(), visits: count })),
        }),
      ),
    }),
    crawledNotCited: z
      .array(
        z.object({
          ...pageRef,
          title: z.string().nullable(),
          pageId: id.nullable(),
          hits: count,
          agents: z.array(z.string()),
        }),
      )
      .describe(
        'Pages AI agents fetched in the period (not counting spoofed hits) that no answer of the period cites, most fetched first',
      ),
    crawledNotCitedTotal: count,
    citedNotCrawled: z
      .array(
        z.object({
          url: z.string(),
          path: z.string().nullable(),
          title: z.string().nullable(),
          pageId: id.nullable(),
          answers: count.describe('Answers of the period citing it'),
          lastCrawled: day
            .nullable()
            .describe('The last day an AI agent fetched it, in any log imported; null for never'),
        }),
      )
      .describe('Own pages answers of the period cite that no AI agent fetched in the period, most cited first'),
    citedNotCrawledTotal: count,
    lastImport: crawlerLogImport.nullable(),
  }),
);
