import { z } from 'zod';
import type { ScanRow } from '../../db/schema.ts';
import { formatUsd, microsToUsd } from '../../money.ts';
import { count, dateTime, id, named, provider, usd } from './responses.ts';
import { SCAN_STATUSES } from './scan-statuses.ts';

/**
 * A scan as the API and the webhooks show it: shared by scans, which run
 * them, and webhooks, whose scan events carry one.
 */

export const scanFields = {
  id,
  projectId: id,
  status: z.enum(SCAN_STATUSES),
  label: z.string().nullable(),
  trigger: z.enum(['manual', 'schedule', 'import']),
  batch: z.boolean().describe('Batch-priced (variant B): answers within hours at half price'),
  costUsd: usd.describe('Spent so far'),
  cost: z.string().describe('costUsd formatted, e.g. "$1.23"'),
  budgetUsd: usd,
  stopReason: z.enum(['budget', 'cap', 'balance', 'cancelled', 'error']).nullable(),
  answersTotal: count,
  answersDone: count,
  answersFailed: count,
  providers: z.array(provider),
  models: z.record(z.string(), z.string()).describe('Model id per provider key'),
  category: z.string().nullable(),
  samples: z.int().positive().describe('Answers per prompt and assistant'),
  simulated: z.boolean().describe('Some answers come from the bundled simulator'),
  simulatedProviders: z.array(provider),
  error: z.string().nullable(),
  createdAt: dateTime,
  startedAt: dateTime.nullable(),
  finishedAt: dateTime.nullable(),
};

export const scan = named('Scan', 'A scan: what it asks, its state, progress and cost', z.object(scanFields));

export function serializeScan(s: ScanRow) {
  return {
    id: s.id,
    projectId: s.siteId,
    status: s.status,
    label: s.label,
    trigger: s.trigger,
    batch: s.batch,
    costUsd: microsToUsd(s.spentMicros),
    cost: formatUsd(s.spentMicros),
    budgetUsd: microsToUsd(s.budgetMicros),
    stopReason: s.stopReason,
    answersTotal: s.answersTotal,
    answersDone: s.answersDone,
    answersFailed: s.answersFailed,
    providers: s.plan.providers ?? [],
    models: s.plan.models ?? {},
    category: s.plan.category ?? null,
    samples: s.plan.samples ?? 1,
    // CONTRACT.md: a customer always sees which answers the simulator gave.
    simulated: (s.plan.simulated ?? []).length > 0,
    simulatedProviders: s.plan.simulated ?? [],
    error: s.error,
    createdAt: s.createdAt,
    startedAt: s.startedAt,
    finishedAt: s.finishedAt,
  };
}
