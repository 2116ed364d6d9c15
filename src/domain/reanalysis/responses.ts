import { z } from 'zod';
import { count, dateTime, id, named } from '../common/index.ts';

/** Response schemas of reanalysis (see src/domain/common/responses.ts). */

export const reanalysis = named(
  'Reanalysis',
  'A re-read of a project’s stored answers with its current names: its state, what it changed, and where to poll it',
  z.object({
    id,
    state: z.enum(['queued', 'running', 'done', 'failed']),
    reason: z.string(),
    answers: count.describe('Answers re-read so far'),
    verdictsChanged: count,
    error: z.string().nullable(),
    requestedAt: dateTime,
    finishedAt: dateTime.nullable(),
    poll: z.string().describe('Path of GET /projects/{id}/reanalyses/{reanalysisId}'),
  }),
);

export const reanalysisResponse = named('ReanalysisResponse', 'A reanalysis', z.object({ reanalysis }));
