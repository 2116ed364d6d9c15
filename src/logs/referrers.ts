/**
 * AI assistants whose answers send people to a site: a visit is a referral
 * when its Referer is one of an assistant's hosts (or a subdomain), or when
 * the landing URL carries the `utm_source` an assistant adds to the links
 * it shows (ChatGPT adds `utm_source=chatgpt.com`; many apps drop the
 * Referer). Kept by hand, like the crawler list.
 */
export interface AiAssistant {
  assistant: string;
  company: string;
  hosts: readonly string[];
  /** `utm_source` values its links carry, lower case. */
  utmSources: readonly string[];
}

export const AI_ASSISTANTS: readonly AiAssistant[] = [
  {
    assistant: 'ChatGPT',
    company: 'OpenAI',
    hosts: ['chatgpt.com', 'chat.openai.com'],
    utmSources: ['chatgpt.com', 'chatgpt', 'openai'],
  },
  {
    assistant: 'Perplexity',
    company: 'Perplexity',
    hosts: ['perplexity.ai'],
    utmSources: ['perplexity', 'perplexity.ai'],
  },
  { assistant: 'Claude', company: 'Anthropic', hosts: ['claude.ai'], utmSources: ['claude.ai', 'claude'] },
  {
    assistant: 'Gemini',
    company: 'Google',
    hosts: ['gemini.google.com', 'bard.google.com'],
    utmSources: ['gemini', 'gemini.google.com'],
  },
  {
    assistant: 'Copilot',
    company: 'Microsoft',
    hosts: ['copilot.microsoft.com', 'copilot.cloud.microsoft'],
    utmSources: ['copilot.microsoft.com', 'copilot'],
  },
  {
    assistant: 'Le Chat',
    company: 'Mistral AI',
    hosts: ['chat.mistral.ai'],
    utmSources: ['chat.mistral.ai', 'mistral'],
  },
  { assistant: 'Meta AI', company: 'Meta', hosts: ['meta.ai'], utmSources: ['meta.ai'] },
  { assistant: 'Grok', company: 'xAI', hosts: ['grok.com'], utmSources: ['grok.com', 'grok'] },
  { assistant: 'DeepSeek', company: 'DeepSeek', hosts: ['chat.deepseek.com'], utmSources: ['deepseek'] },
  { assistant: 'Duck.ai', company: 'DuckDuckGo', hosts: ['duck.ai'], utmSources: ['duck.ai'] },
  { assistant: 'You.com', company: 'You.com', hosts: ['you.com'], utmSources: ['you.com'] },
];

const byHost = new Map<string, string>();
const bySource = new Map<string, string>();
for (const a of AI_ASSISTANTS) {
  for (const h of a.hosts) byHost.set(h, a.assistant);
  for (const u of a.utmSources) bySource.set(u, a.assistant);
}

/** The host of a Referer (`https://www.chatgpt.com/c/..` gives `chatgpt.com`), lower case, without `www.`; null when it has none. */
function refererHost(referer: string): string | null {
  const scheme = referer.indexOf('://');
  if (scheme < 0 || scheme > 10) return null;
  let end = referer.length;
  for (let i = scheme + 3; i < referer.length; i++) {
    const c = referer.charCodeAt(i);
    // '/', ':', '?', '#'
    if (c === 47 || c === 58 || c === 63 || c === 35) {
      end = i;
      break;
    }
  }
  const host = referer.slice(scheme + 3, end).toLowerCase();
  return host.startsWith('www.') ? host.slice(4) : host;
}

/** The assistant a visit came from, by its Referer or its landing URL's utm_source; null for any other visit. */
export function assistantOf(referer: string | null, target: string): string | null {
  if (referer) {
    let host = refererHost(referer);
    // The host or a parent domain of it (`www.perplexity.ai`, `labs.perplexity.ai`), at most a few labels up.
    for (let i = 0; host && i < 4; i++) {
      const hit = byHost.get(host);
      if (hit) return hit;
      const dot = host.indexOf('.');
      host = dot < 0 ? null : host.slice(dot + 1);
    }
  }
  const q = target.indexOf('utm_source=');
  if (q > 0 && (target[q - 1] === '?' || target[q - 1] === '&')) {
    const from = q + 'utm_source='.length;
    const amp = target.indexOf('&', from);
    let value = target.slice(from, amp < 0 ? undefined : amp).toLowerCase();
    if (value.includes('%')) {
      try {
        value = decodeURIComponent(value);
      } catch {
        return null;
      }
    }
    return bySource.get(value) ?? null;
  }
  return null;
}
