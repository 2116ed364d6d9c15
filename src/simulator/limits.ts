import { z } from 'zod';
import { UPSTREAMS, type UpstreamKey } from '../assistants/types.ts';
import { json, type SimResponse } from './sim-context.ts';
import { anthropicError } from './providers/anthropic.ts';
import { appError } from './providers/app.ts';
import { geminiError } from './providers/gemini.ts';
import { openaiError } from './providers/openai.ts';
import { perplexityError } from './providers/perplexity.ts';
import { serpError } from './providers/serp.ts';

/**
 * Account limits, when asked (`POST /__sim/limits`, or SIMULATOR_RPM for the
 * process): requests per minute per upstream, every request under its prefix
 * counted (answers, batch submissions and polls alike, as an account counts
 * them). A token bucket, as providers enforce a per-minute limit over short
 * intervals ("60,000 RPM may be enforced as 1,000 requests per second"): it
 * holds `burst` requests (default one second's worth) and refills at rpm/60 a
 * second. Past it: 429 in the provider's own format, with how long to wait.
 */

const limitSchema = z.union([
  z.number().int().min(1).max(1_000_000),
  z.object({ rpm: z.number().int().min(1).max(1_000_000), burst: z.number().int().min(1).max(1_000_000).optional() }),
]);
export const limitsSchema = z.partialRecord(z.enum(UPSTREAMS), limitSchema.nullable());
export type LimitsInput = z.input<typeof limitsSchema>;

interface Bucket {
  rpm: number;
  burst: number;
  tokens: number;
  at: number;
}

export type Verdict = { ok: true } | { ok: false; upstream: UpstreamKey; rpm: number; retryAfterMs: number };

export class AccountLimits {
  private buckets = new Map<UpstreamKey, Bucket>();
  /** Requests accepted and refused (429) per upstream since the limits were last set or cleared. */
  readonly counts: Record<string, { accepted: number; limited: number }> = {};

  /** Sets (or, with null, removes) the limits named; the others stay. */
  set(input: unknown): void {
    const parsed = limitsSchema.parse(input);
    for (const [name, value] of Object.entries(parsed) as [UpstreamKey, z.output<typeof limitSchema> | null][]) {
      if (value === null) {
        this.buckets.delete(name);
        continue;
      }
      const rpm = typeof value === 'number' ? value : value.rpm;
      const burst = (typeof value === 'number' ? undefined : value.burst) ?? Math.max(1, Math.floor(rpm / 60));
      this.buckets.set(name, { rpm, burst, tokens: burst, at: Date.now() });
      this.counts[name] = { accepted: 0, limited: 0 };
    }
  }

  clear(): void {
    this.buckets.clear();
    for (const k of Object.keys(this.counts)) delete this.counts[k];
  }

  list(): Record<string, { rpm: number; burst: number }> {
    return Object.fromEntries([...this.buckets].map(([name, b]) => [name, { rpm: b.rpm, burst: b.burst }]));
  }

  /** Takes one request from the upstream's bucket; refused with the wait until the next token. */
  take(upstream: UpstreamKey, now = Date.now()): Verdict {
    const b = this.buckets.get(upstream);
    if (!b) return { ok: true };
    const perMs = b.rpm / 60_000;
    b.tokens = Math.min(b.burst, b.tokens + (now - b.at) * perMs);
    b.at = now;
    const count = (this.counts[upstream] ??= { accepted: 0, limited: 0 });
    if (b.tokens >= 1) {
      b.tokens -= 1;
      count.accepted++;
      return { ok: true };
    }
    count.limited++;
    return { ok: false, upstream, rpm: b.rpm, retryAfterMs: Math.ceil((1 - b.tokens) / perMs) };
  }
}

/**
 * A refusal as each provider sends it. Retry-After is whole seconds (HTTP);
 * OpenAI adds its `x-ratelimit-*-requests` headers and Anthropic its
 * `anthropic-ratelimit-requests-*`; Gemini sends no header but a
 * `google.rpc.RetryInfo` with `retryDelay` in the body, as Google's APIs do.
 */
export function limitedResponse(v: Extract<Verdict, { ok: false }>, now = Date.now()): SimResponse {
  const seconds = Math.max(1, Math.ceil(v.retryAfterMs / 1000));
  const retryAfter = { 'retry-after': String(seconds) };
  switch (v.upstream) {
    case 'openai':
      return json(
        429,
        openaiError(
          429,
          `Rate limit reached for requests per min (RPM) in organization org-simulator on requests per min (RPM): Limit ${v.rpm}, Used ${v.rpm}, Requested 1. Please try again in ${v.retryAfterMs}ms. Visit https://platform.openai.com/account/rate-limits to learn more.`,
        ),
        {
          ...retryAfter,
          'x-ratelimit-limit-requests': String(v.rpm),
          'x-ratelimit-remaining-requests': '0',
          'x-ratelimit-reset-requests': `${v.retryAfterMs}ms`,
        },
      );
    case 'anthropic':
      return json(
        429,
        anthropicError(
          429,
          'This request would exceed the rate limit for your organization of requests per minute (simulated).',
        ),
        {
          ...retryAfter,
          'anthropic-ratelimit-requests-limit': String(v.rpm),
          'anthropic-ratelimit-requests-remaining': '0',
          'anthropic-ratelimit-requests-reset': new Date(now + v.retryAfterMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        },
      );
    case 'gemini': {
      const body = geminiError(
        429,
        'You exceeded your current quota, please check your plan and billing details (simulated).',
      ) as { error: Record<string, unknown> };
      body.error.details = [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            {
              quotaMetric: 'generativelanguage.googleapis.com/generate_content_requests',
              quotaId: 'GenerateRequestsPerMinutePerProjectPerModel',
              quotaValue: String(v.rpm),
            },
          ],
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` },
      ];
      return json(429, body);
    }
    case 'perplexity':
      return json(
        429,
        perplexityError(429, 'Rate limit exceeded: too many requests per minute (simulated)'),
        retryAfter,
      );
    case 'serp':
      return json(
        429,
        serpError(429, 'Your account has exceeded its hourly searches throughput limit (simulated).'),
        retryAfter,
      );
    case 'appGateway':
      return json(429, appError(429, 'Too many requests per minute (simulated)'), retryAfter);
  }
}
