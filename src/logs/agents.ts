import { AI_CRAWLERS } from '../web/ai-crawlers.ts';

/**
 * Which AI agent a User-Agent names, from the one table of AI crawlers the
 * robots.txt check reads (src/web/ai-crawlers.ts): each agent's product
 * tokens (`GPTBot/1.1`, `compatible; ClaudeBot/1.0`), matched without case
 * where a token starts (not inside a longer word) and ends (before `/`,
 * `;`, `)`, a space or the end). One regular expression of alternatives,
 * no nesting: linear in the User-Agent. Agents that are robots.txt tokens
 * only (Google-Extended) never match.
 *
 * A User-Agent is a claim: anyone can send `GPTBot`. Whether the hit came
 * from the agent's published addresses is `ranges.ts`.
 */

const tokenToAgent = new Map<string, string>();
for (const c of AI_CRAWLERS)
  for (const token of c.userAgents ?? (c.kind === 'control' ? [] : [c.agent]))
    tokenToAgent.set(token.toLowerCase(), c.agent);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Longest first, so `Googlebot-Image` is not read as `Googlebot`.
const alternatives = [...tokenToAgent.keys()].sort((a, b) => b.length - a.length).map(escape);
const TOKEN = new RegExp(`(?:^|[^a-z0-9-])(${alternatives.join('|')})(?=[/;)\\s,]|$)`, 'i');

/** User-Agents seen often (crawlers send the same few): their answer is kept, up to a bound of entries and of length. */
const CACHE_MAX = 20_000;
const CACHED_LENGTH_MAX = 512;
const cache = new Map<string, string | null>();

/** The agent of `/crawlers` a User-Agent claims to be, or null (a person, or a bot of no AI agent). */
export function agentOf(userAgent: string): string | null {
  const known = cache.get(userAgent);
  if (known !== undefined) return known;
  const m = userAgent.length > 0 ? TOKEN.exec(userAgent) : null;
  const agent = m ? (tokenToAgent.get((m[1] as string).toLowerCase()) ?? null) : null;
  if (userAgent.length <= CACHED_LENGTH_MAX) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(userAgent, agent);
  }
  return agent;
}

/** Every agent a log line can name (control tokens have no User-Agent). */
export const LOGGED_AGENTS: readonly string[] = [...new Set(tokenToAgent.values())];
