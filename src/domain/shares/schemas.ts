import { z } from 'zod';
import { text, DEFAULT_PERIOD, isoDateSchema, periodSchema, pagingShape } from '../common/index.ts';

export const SHARE_LABEL_MAX = 100;

/** POST /projects/:id/shares: an optional label; an empty one is no label. */
export const shareCreateSchema = z.object({
  label: text('label', SHARE_LABEL_MAX, 0)
    .nullable()
    .optional()
    .transform((v) => (v ? v : null)),
});
export type ShareCreate = z.output<typeof shareCreateSchema>;

/** Revoked links stay listed, so the list grows; the first page holds as many as may be active at once. */
export const SHARE_PAGE_DEFAULT = 100;
export const shareListQuerySchema = z.object(pagingShape(SHARE_PAGE_DEFAULT));
export type ShareListQuery = z.output<typeof shareListQuerySchema>;

/**
 * The shared page's period parameters. The page is opened from links people
 * pass around, so a mangled `period` or `start` shows the default period
 * instead of an error page.
 */
export const sharePageQuerySchema = z.object({
  period: periodSchema.default(DEFAULT_PERIOD).catch(DEFAULT_PERIOD),
  start: isoDateSchema('start').optional().catch(undefined),
});
