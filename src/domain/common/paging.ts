import { z } from 'zod';
import { PROVIDER_KEYS } from '../../assistants/catalog.ts';

/** Query-string pieces the report and answer views share, so each parameter is validated one way. */

const perPageMessage = 'perPage must be a whole number from 5 to 200';

export const pagingShape = (perPageDefault: number) => ({
  page: z.coerce
    .number({ error: 'page must be a whole number from 1' })
    .int('page must be a whole number from 1')
    .min(1, 'page must be a whole number from 1')
    .max(1_000_000, 'page is too large')
    .default(1),
  perPage: z.coerce
    .number({ error: perPageMessage })
    .int(perPageMessage)
    .min(5, perPageMessage)
    .max(200, perPageMessage)
    .default(perPageDefault),
});

/** The query parameter `engine`: the API's word for a provider. */
export const providerParam = z.enum(PROVIDER_KEYS, { error: `engine must be one of ${PROVIDER_KEYS.join(', ')}` });
