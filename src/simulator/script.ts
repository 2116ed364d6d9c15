import { z } from 'zod';
import { PROVIDER_KEYS } from '../assistants/catalog.ts';

/**
 * Scripts steer the simulator from tests and demos (`POST /__sim/script`).
 * The latest script whose provider and `match` fit a request wins; its
 * `fail.times` counts down once per matching request, after which the
 * script answers with its text (or the generated one).
 */
export const scriptSchema = z.object({
  provider: z.enum(PROVIDER_KEYS).nullable().optional(),
  match: z.string().optional(),
  text: z.string().optional(),
  citations: z.array(z.object({ url: z.string().min(1), title: z.string().optional() })).optional(),
  searches: z.array(z.string()).optional(),
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  fail: z
    .object({
      status: z.number().int().min(200).max(599),
      times: z.number().int().min(0).default(1),
      /** Seconds sent as Retry-After with a 429 (default 1) or 503. */
      retryAfter: z.number().min(0).optional(),
      /** A raw body instead of the provider's error JSON, e.g. an HTML error page. */
      body: z.string().optional(),
      contentType: z.string().optional(),
    })
    .optional(),
  /** Queue and batch jobs matching this script become ready after this long. */
  readyAfterMs: z.number().int().min(0).max(3_600_000).optional(),
  /** AI Overview only: force (true) or skip (false) the page_token follow-up. */
  pageToken: z.boolean().optional(),
  /**
   * Answer at random: each matching request names `name` in its list with
   * probability `probability`, drawn from a generator seeded by `seed`, so a
   * run of N requests is repeatable; the rest of the answer varies from
   * request to request too. `text` in the same script wins over it.
   */
  mention: z
    .object({
      name: z.string().trim().min(1),
      probability: z.number().min(0).max(1),
      seed: z.number().int().default(1),
    })
    .optional(),
});

export type ScriptInput = z.input<typeof scriptSchema>;
export type Script = z.output<typeof scriptSchema> & { id: number; failsLeft: number; draws: number };

export class ScriptBook {
  private scripts: Script[] = [];
  private nextId = 1;

  add(input: unknown): Script {
    const parsed = scriptSchema.parse(input);
    const script: Script = { ...parsed, id: this.nextId++, failsLeft: parsed.fail?.times ?? 0, draws: 0 };
    this.scripts.push(script);
    return script;
  }

  clear(): void {
    this.scripts = [];
  }

  list(): Script[] {
    return [...this.scripts];
  }

  /** Latest matching script, without consuming a failure. */
  find(provider: string, prompt: string): Script | undefined {
    const lower = prompt.toLowerCase();
    for (let i = this.scripts.length - 1; i >= 0; i--) {
      const s = this.scripts[i];
      if (!s) continue;
      if (s.provider && s.provider !== provider) continue;
      if (s.match && !lower.includes(s.match.toLowerCase())) continue;
      return s;
    }
    return undefined;
  }

  /** The next draw of a `mention` script: its number (0, 1, ...), counted per script. */
  nextDraw(script: Script): number {
    return script.draws++;
  }

  /** Counts one matching request against the script's failures; returns the failure to send, if any. */
  takeFailure(script: Script | undefined): Script['fail'] | undefined {
    if (!script?.fail || script.failsLeft <= 0) return undefined;
    script.failsLeft -= 1;
    return script.fail;
  }
}
