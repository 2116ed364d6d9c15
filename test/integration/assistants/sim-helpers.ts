import { randomUUID } from 'node:crypto';
import { createAssistants, type AssistantsOptions } from '../../../src/assistants/assistants.ts';
import type { Assistants } from '../../../src/assistants/types.ts';
import type { Config } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import type { LoggedRequest } from '../../../src/simulator/state.ts';
import type { ScriptInput } from '../../../src/simulator/script.ts';

/** Talks to a simulator started inside the test on 127.0.0.1:0. */

const none = { apiKey: undefined, baseUrl: undefined };

export function simConfig(simulatorUrl: string, timeoutMs = 5000): Config['assistants'] {
  return {
    mode: 'auto',
    simulatorUrl,
    simulatorPort: 0,
    timeoutMs,
    concurrency: undefined,
    retryBaseMs: 10,
    openai: none,
    anthropic: none,
    perplexity: none,
    gemini: none,
    serp: none,
    appGateway: none,
  };
}

export function testAssistants(
  simulatorUrl: string,
  opts: { timeoutMs?: number } & AssistantsOptions = {},
): Assistants {
  return createAssistants(simConfig(simulatorUrl, opts.timeoutMs), createLogger('silent'), {
    retry: { baseDelayMs: 10 },
    queuePollIntervalMs: 50,
    ...opts,
  });
}

export async function script(simulatorUrl: string, body: ScriptInput | ScriptInput[]): Promise<void> {
  const res = await fetch(`${simulatorUrl}/__sim/script`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`script rejected: ${res.status} ${await res.text()}`);
}

export async function clearScripts(simulatorUrl: string): Promise<void> {
  await fetch(`${simulatorUrl}/__sim/script`, { method: 'DELETE' });
}

export async function requestsFor(simulatorUrl: string, needle: string): Promise<LoggedRequest[]> {
  const body = (await (await fetch(`${simulatorUrl}/__sim/requests`)).json()) as { requests: LoggedRequest[] };
  return body.requests.filter((r) => r.prompt.includes(needle));
}

/** A prompt nobody else in the run uses, so scripts and request logs stay per test. */
export function uniquePrompt(text = 'What are the best CRM tools for agencies like Acme?'): {
  prompt: string;
  tag: string;
} {
  const tag = `t${randomUUID().slice(0, 8)}`;
  return { prompt: `${text} (${tag})`, tag };
}
