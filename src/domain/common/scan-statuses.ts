import type { ScanStatus } from '../../db/schema.ts';

/** Every state of a scan (src/db/schema.ts ScanStatus), in the order a scan goes through them. */
export const SCAN_STATUSES = [
  'queued',
  'running',
  'cancelling',
  'cancelled',
  'done',
  'failed',
] as const satisfies readonly ScanStatus[];

/** A scan in these has not ended: it holds the site's one active scan and may still spend. */
export const ACTIVE_SCAN_STATUSES = ['queued', 'running', 'cancelling'] as const satisfies readonly ScanStatus[];
