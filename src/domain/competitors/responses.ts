import { z } from 'zod';
import { named } from '../common/index.ts';
import { namesDryRun, warnings } from '../names/index.ts';
import { reanalysis } from '../reanalysis/index.ts';
import { competitor } from '../sites/index.ts';

/** Response schemas of tracking competitors (see src/domain/common/responses.ts); their report is in reports/responses.ts. */

export const competitorChange = named(
  'CompetitorChange',
  'The competitor tracked or changed; stored answers are re-read when its names, domain or exclusion phrases changed (`reanalysis`, else null); `warnings` lists ambiguous names it saved',
  z.object({ competitor, reanalysis: reanalysis.nullable(), warnings }),
);

export const competitorChangeResult = named(
  'CompetitorChangeResult',
  'The competitor tracked or changed (CompetitorChange), or with `dryRun: true` what it would do, nothing saved (NamesDryRun)',
  z.union([competitorChange, namesDryRun]),
);

export const untrackedCompetitor = named(
  'UntrackedCompetitor',
  'The competitor no longer tracked; stored answers are re-read without it',
  z.object({ deleted: z.boolean(), competitor, reanalysis }),
);
