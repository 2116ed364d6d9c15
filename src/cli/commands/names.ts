import { z } from 'zod';
import { count, defineCommand, id, UsageError, withContext } from '../command.ts';

/**
 * How a site's names are read and what readers corrected
 * (docs/analysis.md "Names and corrections"), printed as the API answers
 * them: for an operator looking into a customer's miscounted name.
 */
export const nameCommands = [
  defineCommand({
    name: 'names list',
    usage: 'names list --project ID [--page N] [--per-page N]',
    summary:
      'Every name a project tracks: ambiguous or not and why, answers where it counted and was refused, examples, precision from corrections',
    flags: { project: id, page: count.optional(), 'per-page': count.optional() },
    run: (a, config) =>
      withContext(config, async (ctx) => {
        const [{ findSiteForOperator }, { listNames }, { nameListQuerySchema }] = await Promise.all([
          import('../../domain/sites/index.ts'),
          import('../../domain/names/index.ts'),
          import('../../domain/names/index.ts'),
        ]);
        const query = nameListQuerySchema.safeParse({ page: a.page, perPage: a['per-page'] });
        if (!query.success) throw new UsageError(query.error.issues.map((i) => i.message).join('; '));
        return listNames(ctx, await findSiteForOperator(ctx, a.project), query.data);
      }),
  }),
  defineCommand({
    name: 'names corrections',
    usage: 'names corrections --project ID [--name NAME] [--page N] [--per-page N]',
    summary: "A project's mention corrections (readers saying a name is or is not meant in an answer), newest first",
    flags: { project: id, name: z.string().optional(), page: count.optional(), 'per-page': count.optional() },
    run: (a, config) =>
      withContext(config, async (ctx) => {
        const [{ findSiteForOperator }, { listMentionFeedback }, { mentionFeedbackListQuerySchema }] =
          await Promise.all([
            import('../../domain/sites/index.ts'),
            import('../../domain/names/index.ts'),
            import('../../domain/names/index.ts'),
          ]);
        const query = mentionFeedbackListQuerySchema.safeParse({ name: a.name, page: a.page, perPage: a['per-page'] });
        if (!query.success) throw new UsageError(query.error.issues.map((i) => i.message).join('; '));
        return listMentionFeedback(ctx, await findSiteForOperator(ctx, a.project), query.data);
      }),
  }),
];
