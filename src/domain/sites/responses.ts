import { z } from 'zod';
import { count, dateTime, day, id, named, paging, provider, usd } from '../common/index.ts';
import { namesDryRun, warnings } from '../names/index.ts';
import { reanalysis } from '../reanalysis/index.ts';

/** Response schemas of sites (projects) and their events (see src/domain/common/responses.ts). */

export const schedule = named(
  'Schedule',
  'Scheduled scans: on or off, batch-priced (variant B), and the next one',
  z.object({ enabled: z.boolean(), batch: z.boolean(), nextScanAt: dateTime.nullable() }),
);

export const scanSettings = named(
  'ScanSettings',
  'A project’s saved scan settings, used by scheduled scans and as a manual scan’s defaults',
  z.object({
    providers: z.array(provider).nullable().describe('null: every allowed assistant'),
    models: z.record(z.string(), z.string()).describe('Model id per provider key, where not the default'),
    category: z.string().nullable(),
    budgetUsd: usd.describe('0: no budget'),
    skipAtCap: z.boolean(),
    samples: z.int().positive().describe('Answers per prompt and assistant in each scan'),
  }),
);

export const competitor = named(
  'Competitor',
  'A tracked competitor',
  z.object({
    id,
    name: z.string(),
    domain: z.string().nullable(),
    aliases: z.array(z.string()),
    excludePhrases: z.array(z.string()).describe('Phrases in which its names never count'),
    color: z.string().nullable(),
    logo: z.string().nullable(),
    createdAt: dateTime,
  }),
);

const siteFields = {
  id,
  orgId: id,
  name: z.string(),
  url: z.string(),
  domain: z.string().describe('The url’s host without www.'),
  industry: z.string().nullable(),
  brandTerms: z.array(z.string()),
  excludePhrases: z
    .array(z.string())
    .describe('Phrases in which the brand’s names never count, such as "Amazon rainforest"'),
  language: z.string(),
  location: z.string(),
  scanFrequencyDays: z.int().positive(),
  monthlyCapUsd: usd.nullable(),
  scanSettings,
  allowedProviders: z.array(provider).nullable().describe('null: every assistant'),
  schedule,
  competitors: z.array(competitor),
  createdAt: dateTime,
  updatedAt: dateTime,
};

export const siteSummary = named('ProjectSummary', 'A project (site) as lists show it', z.object(siteFields));

export const siteDetail = named(
  'Project',
  'A project (site) with the caller’s role and the number of stored answers',
  z.object({ ...siteFields, role: z.enum(['owner', 'admin', 'member', 'viewer']), answersCount: count }),
);

export const siteList = named(
  'ProjectList',
  'The workspace’s projects, oldest first, a page at a time',
  z.object({ projects: z.array(siteSummary), ...paging }),
);

export const createdSite = named(
  'CreatedProject',
  'The project added, and the ambiguous names it tracks',
  z.object({ project: siteSummary, warnings }),
);

export const siteDetailResponse = named('ProjectResponse', 'A project', z.object({ project: siteDetail }));

export const siteChange = named(
  'ProjectChange',
  'The project changed; a new name, brand terms or exclusion phrases re-read its stored answers (`reanalysis`, else null); `warnings` lists ambiguous names it saved',
  z.object({ project: siteDetail, reanalysis: reanalysis.nullable(), warnings }),
);

export const siteChangeResult = named(
  'ProjectChangeResult',
  'The project changed (ProjectChange), or with `dryRun: true` what the change would do, nothing saved (NamesDryRun)',
  z.union([siteChange, namesDryRun]),
);

export const siteEvent = named(
  'Event',
  'A dated annotation drawn on trend charts (variant B)',
  z.object({
    id,
    title: z.string(),
    date: day,
    type: z.enum(['site', 'model', 'campaign', 'other']),
    note: z.string().nullable(),
    createdAt: dateTime.optional().describe('Absent where trends list events'),
  }),
);

export const siteEventList = named(
  'EventList',
  'A page of the project’s events, oldest first',
  z.object({ events: z.array(siteEvent), ...paging }),
);
export const siteEventResponse = named('EventResponse', 'The event', z.object({ event: siteEvent }));
export const deletedSiteEvent = named(
  'DeletedEvent',
  'The event removed',
  z.object({ deleted: z.boolean(), event: siteEvent }),
);
