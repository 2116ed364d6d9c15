import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import { defineCommand, id, UsageError, withContext } from '../command.ts';

/**
 * A workspace's webhooks for operators (`sightline webhooks ...`): the same
 * domain functions as the admin-only endpoints, with the same request
 * schemas, so a flag is checked as the API checks the field.
 */

/** `a,b,c` as a list; `all` or `*` for every event type or project. */
const list = (raw: string | undefined) =>
  raw === undefined
    ? undefined
    : raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/** A domain refusal of a field (422) as a usage error naming the flag. */
async function run<T>(config: Config, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const { ValidationError } = await import('../../errors.ts');
  return withContext(config, async (ctx) => {
    try {
      return await fn(ctx);
    } catch (err) {
      if (err instanceof ValidationError && err.fields)
        throw new UsageError(
          Object.entries(err.fields)
            .map(([f, m]) => `--${f}: ${m}`)
            .join('; '),
        );
      throw err;
    }
  });
}

async function parsed<S extends z.ZodType>(schema: S, input: unknown): Promise<z.output<S>> {
  const result = schema.safeParse(input);
  if (!result.success)
    throw new UsageError(result.error.issues.map((i) => `--${String(i.path[0] ?? 'input')}: ${i.message}`).join('; '));
  return result.data;
}

const webhookFlags = {
  url: z.string().optional(),
  events: z.string().optional(),
  projects: z.string().optional(),
  format: z.string().optional(),
  description: z.string().optional(),
};

function body(a: { url?: string; events?: string; projects?: string; format?: string; description?: string }) {
  const siteIds = a.projects === 'all' ? null : list(a.projects)?.map(Number);
  return {
    ...(a.url !== undefined && { url: a.url }),
    ...(a.events !== undefined && { events: a.events === 'all' ? ['*'] : list(a.events) }),
    ...(siteIds !== undefined && { projectIds: siteIds }),
    ...(a.format !== undefined && { format: a.format }),
    ...(a.description !== undefined && { description: a.description }),
  };
}

export const webhookCommands = [
  defineCommand({
    name: 'webhooks list',
    usage: 'webhooks list --org ID',
    summary: "A workspace's webhooks (never their secrets)",
    flags: { org: id },
    run: (a, config) =>
      run(config, async (ctx) => (await import('../../domain/webhooks/index.ts')).listWebhooks(ctx, a.org)),
  }),
  defineCommand({
    name: 'webhooks create',
    usage:
      'webhooks create --org ID --url https://... [--events a,b|all] [--projects 1,2|all] [--format standard|slack] [--description TEXT]',
    summary: 'Add a webhook; prints its signing secret, this once',
    flags: { org: id, ...webhookFlags },
    run: (a, config) =>
      run(config, async (ctx) => {
        const [{ createWebhook }, { webhookCreateSchema }] = await Promise.all([
          import('../../domain/webhooks/index.ts'),
          import('../../domain/webhooks/index.ts'),
        ]);
        return createWebhook(ctx, { orgId: a.org, userId: null }, await parsed(webhookCreateSchema, body(a)));
      }),
  }),
  defineCommand({
    name: 'webhooks update',
    usage:
      'webhooks update --org ID --webhook ID [--url URL] [--events a,b|all] [--projects 1,2|all] [--format standard|slack] [--description TEXT] [--enabled true|false]',
    summary: 'Change a webhook; --enabled true starts a disabled one again',
    flags: { org: id, webhook: id, ...webhookFlags, enabled: z.enum(['true', 'false']).optional() },
    run: (a, config) =>
      run(config, async (ctx) => {
        const [{ updateWebhook }, { webhookUpdateSchema }] = await Promise.all([
          import('../../domain/webhooks/index.ts'),
          import('../../domain/webhooks/index.ts'),
        ]);
        const input = await parsed(webhookUpdateSchema, {
          ...body(a),
          ...(a.enabled !== undefined && { enabled: a.enabled === 'true' }),
        });
        return updateWebhook(ctx, a.org, a.webhook, input);
      }),
  }),
  defineCommand({
    name: 'webhooks delete',
    usage: 'webhooks delete --org ID --webhook ID',
    summary: 'Delete a webhook with its deliveries',
    flags: { org: id, webhook: id },
    run: (a, config) =>
      run(config, async (ctx) => (await import('../../domain/webhooks/index.ts')).deleteWebhook(ctx, a.org, a.webhook)),
  }),
  defineCommand({
    name: 'webhooks test',
    usage: 'webhooks test --org ID --webhook ID',
    summary: 'Send a webhook.test event (a worker delivers it); prints the delivery',
    flags: { org: id, webhook: id },
    run: (a, config) =>
      run(config, async (ctx) => (await import('../../domain/webhooks/index.ts')).testWebhook(ctx, a.org, a.webhook)),
  }),
  defineCommand({
    name: 'webhooks rotate-secret',
    usage: 'webhooks rotate-secret --org ID --webhook ID',
    summary: 'A new signing secret, printed this once; the previous one still signs for 24 hours',
    flags: { org: id, webhook: id },
    run: (a, config) =>
      run(config, async (ctx) => (await import('../../domain/webhooks/index.ts')).rotateSecret(ctx, a.org, a.webhook)),
  }),
  defineCommand({
    name: 'webhooks deliveries',
    usage: 'webhooks deliveries --org ID --webhook ID [--page N] [--per-page N] [--status pending|delivered|failed]',
    summary: "A webhook's deliveries, newest first, with their latest attempts",
    flags: {
      org: id,
      webhook: id,
      page: z.string().optional(),
      'per-page': z.string().optional(),
      status: z.string().optional(),
    },
    run: (a, config) =>
      run(config, async (ctx) => {
        const [{ listDeliveries }, { deliveriesQuerySchema }] = await Promise.all([
          import('../../domain/webhooks/index.ts'),
          import('../../domain/webhooks/index.ts'),
        ]);
        const query = await parsed(deliveriesQuerySchema, { page: a.page, perPage: a['per-page'], status: a.status });
        return listDeliveries(ctx, a.org, a.webhook, query);
      }),
  }),
  defineCommand({
    name: 'webhooks replay',
    usage: 'webhooks replay --org ID --webhook ID --delivery ID',
    summary: 'Send a delivery again (a worker sends it), with the same webhook-id',
    flags: { org: id, webhook: id, delivery: id },
    run: (a, config) =>
      run(config, async (ctx) =>
        (await import('../../domain/webhooks/index.ts')).replayDelivery(ctx, a.org, a.webhook, a.delivery),
      ),
  }),
];
