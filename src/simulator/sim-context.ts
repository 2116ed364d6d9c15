import { applyOverride, generateAnswer, withMention, type SimAnswer } from './answer.ts';
import { createRng, hash } from './rng.ts';
import type { Script } from './script.ts';
import type { LoggedRequest, SimState } from './state.ts';

/** What every provider module gets: shared state, settings, and the request in a neutral form. */

export interface SimContext {
  state: SimState;
  seed: number;
  /** Default time until a queue or batch job is ready. */
  jobDelayMs: number;
  delay(ms: number): Promise<void>;
}

export interface SimRequest {
  method: string;
  /** Path below the provider prefix, e.g. "/v1/messages". */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON for JSON bodies; the raw bytes otherwise. */
  json: unknown;
  raw: Buffer;
  /** "http://host:port" as the client reached us, for absolute links (Anthropic results_url). */
  origin: string;
}

export interface SimResponse {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

export type Failure = NonNullable<Script['fail']>;

export function json(status: number, body: unknown, headers: Record<string, string> = {}): SimResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body };
}

export function header(req: SimRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

export function bearer(req: SimRequest): string | undefined {
  const auth = header(req, 'authorization');
  return auth?.startsWith('Bearer ') ? auth.slice(7).trim() || undefined : undefined;
}

export interface Asked extends Omit<LoggedRequest, 'seq' | 'time' | 'method' | 'path'> {
  countryName?: string | null;
}

/**
 * Logs a prompt, applies the matching script's latency and failure, and
 * builds the answer to render. `failure` set means: answer with an error.
 */
export async function handlePrompt(
  ctx: SimContext,
  req: SimRequest,
  asked: Asked,
): Promise<{ answer: SimAnswer; failure?: Failure; script?: Script }> {
  ctx.state.log({
    provider: asked.provider,
    model: asked.model,
    prompt: asked.prompt,
    system: asked.system,
    location: asked.location,
    language: asked.language,
    method: req.method,
    path: req.path,
  });
  const script = ctx.state.scripts.find(asked.provider, asked.prompt);
  if (script?.latencyMs) await ctx.delay(script.latencyMs);
  const failure = ctx.state.scripts.takeFailure(script);
  const answer = promptAnswer(ctx, asked, script);
  return { answer, ...(failure ? { failure } : {}), ...(script ? { script } : {}) };
}

/** Same as handlePrompt for one item of a batch or queue job: no latency, the failure becomes the item's error. */
export function handleItem(
  ctx: SimContext,
  req: SimRequest,
  asked: Asked,
): { answer: SimAnswer; failure?: Failure; script?: Script } {
  ctx.state.log({
    provider: asked.provider,
    model: asked.model,
    prompt: asked.prompt,
    system: asked.system,
    location: asked.location,
    language: asked.language,
    method: req.method,
    path: req.path,
  });
  const script = ctx.state.scripts.find(asked.provider, asked.prompt);
  const failure = ctx.state.scripts.takeFailure(script);
  return { answer: promptAnswer(ctx, asked, script), ...(failure ? { failure } : {}), ...(script ? { script } : {}) };
}

function promptAnswer(ctx: SimContext, asked: Asked, script: Script | undefined): SimAnswer {
  const input = {
    seed: ctx.seed,
    provider: asked.provider,
    model: asked.model ?? '',
    prompt: asked.prompt,
    countryName: asked.countryName ?? null,
  };
  if (script?.mention) {
    // Draw k of this script: whether the name is in, and a different answer around it each time.
    const k = ctx.state.scripts.nextDraw(script);
    const rng = createRng(hash(`mention|${script.mention.seed}|${k}`));
    const named = rng.next() < script.mention.probability;
    const varied = generateAnswer({ ...input, seed: hash(`${ctx.seed}|${script.mention.seed}|${k}`) });
    return applyOverride(withMention(varied, script.mention.name, named, rng), script);
  }
  const base = generateAnswer(input);
  return script ? applyOverride(base, script) : base;
}

/** The failure as the provider would send it: its error JSON (or the scripted raw body) with Retry-After on 429/503. */
export function failureResponse(
  failure: Failure,
  errorBody: (status: number, message: string) => unknown,
): SimResponse {
  const headers: Record<string, string> = {};
  if (failure.status === 429 || failure.status === 503) headers['retry-after'] = String(failure.retryAfter ?? 1);
  if (failure.body !== undefined)
    return {
      status: failure.status,
      headers: { ...headers, 'content-type': failure.contentType ?? 'text/html' },
      body: failure.body,
    };
  return json(failure.status, errorBody(failure.status, failureMessage(failure.status)), headers);
}

export function failureMessage(status: number): string {
  if (status === 429) return 'Rate limit reached for requests (simulated)';
  if (status >= 500) return 'The server had an error while processing your request (simulated)';
  if (status === 401) return 'Invalid API key (simulated)';
  return 'Invalid request (simulated)';
}

/** Readiness of a job: the latest readyAfterMs of the scripts its prompts match, else the default. */
export function jobReadyAt(ctx: SimContext, provider: string, prompts: string[]): number {
  let delay = ctx.jobDelayMs;
  const scripted = prompts
    .map((p) => ctx.state.scripts.find(provider, p)?.readyAfterMs)
    .filter((d): d is number => d !== undefined);
  if (scripted.length > 0) delay = Math.max(...scripted);
  return Date.now() + delay;
}

export function unixSeconds(ms = Date.now()): number {
  return Math.floor(ms / 1000);
}
