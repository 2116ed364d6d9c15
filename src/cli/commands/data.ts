import { z } from 'zod';
import { defineCommand, id, UsageError, withContext } from '../command.ts';

/** Data that grows (docs/scaling.md "Data that grows"): retention and deleting a site for good. */
export const dataCommands = [
  defineCommand({
    name: 'org retention',
    usage: 'org retention --org ID (--months N | --keep-all)',
    summary:
      'Keep the current month of answers and N months before it (older months are dropped nightly), or keep everything (the default)',
    flags: { org: id, months: z.coerce.number().int().min(1).max(1200).optional(), 'keep-all': z.boolean().optional() },
    run: (a, config) => {
      if ((a.months === undefined) === !a['keep-all']) throw new UsageError('give --months N or --keep-all');
      return withContext(config, async (ctx) =>
        (await import('../../domain/orgs/index.ts')).setOrgRetention(ctx, a.org, {
          retentionMonths: a['keep-all'] ? null : (a.months as number),
        }),
      );
    },
  }),
  defineCommand({
    name: 'retention run',
    usage: 'retention run',
    summary:
      "Apply every workspace's retention now (the nightly job's work): make next months' answer partitions, drop months no workspace keeps",
    flags: {},
    run: (_a, config) =>
      withContext(config, async (ctx) => (await import('../../domain/facts/index.ts')).runRetentionTick(ctx)),
  }),
  defineCommand({
    name: 'site delete',
    positional: 'site',
    usage: 'site delete <siteId> --yes',
    summary:
      'Delete a site (project) with every row of it, rollups included; ledger entries stay. Refused while a scan runs',
    flags: { site: id, yes: z.boolean().optional() },
    run: (a, config) => {
      if (!a.yes) throw new UsageError(`deleting project ${a.site} cannot be undone: add --yes`);
      return withContext(config, async (ctx) => (await import('../../domain/sites/index.ts')).deleteSite(ctx, a.site));
    },
  }),
];
