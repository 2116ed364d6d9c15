import { createAssistants, type Assistants } from '../assistants/index.ts';
import type { AppContext } from '../context.ts';

const cache = new WeakMap<AppContext['config'], Assistants>();

/** One assistants layer per process and config: its concurrency limits must be shared by every job. */
export function assistantsFor(ctx: AppContext): Assistants {
  let assistants = cache.get(ctx.config);
  if (!assistants) cache.set(ctx.config, (assistants = createAssistants(ctx.config.assistants, ctx.logger)));
  return assistants;
}
