import type { ResolvedAsk } from './types.ts';

/**
 * The system-level text sent with a prompt. Persona context and the answer
 * language go here for every chat model; the location only for providers
 * that have no location parameter of their own (Gemini, the app gateway is
 * given it as a field).
 */
export function systemInstruction(request: ResolvedAsk, opts: { includeLocation: boolean }): string | null {
  const lines: string[] = [];
  if (request.context) lines.push(`About the person asking: ${request.context}`);
  if (opts.includeLocation && request.countryName) lines.push(`The person asking is in ${request.countryName}.`);
  if (request.languageName) lines.push(`Answer in ${request.languageName}.`);
  return lines.length > 0 ? lines.join('\n') : null;
}
