import { z } from 'zod';
import { count, dateTime, id, named, paging } from '../common/index.ts';

/** Response schemas of share links, variant A (see src/domain/common/responses.ts). */

const shareFields = {
  id,
  label: z.string().nullable(),
  prefix: z.string().describe('The token’s first characters, to tell links apart'),
  state: z.enum(['active', 'revoked']),
  createdBy: z.object({ id, name: z.string().nullable() }).nullable(),
  createdAt: dateTime,
  revokedAt: dateTime.nullable(),
};

export const share = named(
  'Share',
  'A share link of a project’s report; its URL is shown only when it is created',
  z.object(shareFields),
);

export const shareList = named(
  'ShareList',
  'The project’s share links, newest first, revoked ones included, a page at a time; active counts every active link',
  z.object({ shares: z.array(share), ...paging, active: count }),
);

export const createdShare = named(
  'CreatedShare',
  'The link created, with its URL (shown this once: only the token’s hash is kept)',
  z.object({ share: z.object({ ...shareFields, url: z.string() }), url: z.string() }),
);

export const revokedShare = named(
  'RevokedShare',
  'The link, revoked for good',
  z.object({ revoked: z.boolean(), share }),
);
