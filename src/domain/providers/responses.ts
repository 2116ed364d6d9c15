import { z } from 'zod';
import { named, paging, provider, usd } from '../common/index.ts';

/** Response schemas of the providers endpoint (see src/domain/common/responses.ts). */

export const model = named(
  'Model',
  'A model of an assistant with its price per answer',
  z.object({
    id: z.string(),
    label: z.string(),
    kind: z
      .enum(['api', 'app', 'app-queue', 'serp'])
      .describe(
        'api: the provider’s API; app: the consumer app’s answer; app-queue: the app’s answer minutes later, cheaper; serp: a search results page',
      ),
    costPerAnswerUsd: usd,
    batchCostPerAnswerUsd: usd.nullable().describe('Batch price (variant B), null without a batch API'),
    default: z.boolean(),
  }),
);

export const assistant = named(
  'Assistant',
  'One of the six assistants, its models and whether this deployment can ask it',
  z.object({
    key: provider,
    name: z.string(),
    model: z.string().describe('The default model'),
    defaultModel: z.string(),
    connected: z.boolean(),
    source: z
      .enum(['api', 'simulator'])
      .nullable()
      .describe('Who answers: the provider’s API, the bundled simulator, or nobody (not connected)'),
    simulated: z.boolean().describe('Answers come from the bundled simulator, not the provider'),
    models: z.array(model),
  }),
);

export const assistantList = named(
  'AssistantList',
  'The six assistants, in the catalog’s order, a page at a time',
  z.object({ providers: z.array(assistant), ...paging }),
);
