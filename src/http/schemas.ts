import { z } from 'zod';

/** Small reusable request-schema pieces, so each field is validated one way everywhere. */
export const trimmed = (label: string, max: number, min = 1) =>
  z
    .string({ error: `${label} must be a string` })
    .trim()
    .min(min, min === 1 ? `${label} must not be empty` : `${label} needs at least ${min} characters`)
    .max(max, `${label} must be at most ${max} characters`);

export const keyRole = z.enum(['viewer', 'member', 'admin'], { error: 'must be viewer, member or admin' });

export const usdAmount = z.number({ error: 'must be a number of US dollars' }).finite().min(0, 'must not be negative').max(1_000_000, 'must be at most 1,000,000');
