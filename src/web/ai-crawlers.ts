/**
 * The AI crawlers a crawler check reports on: the product token each obeys
 * in robots.txt, its company, and what it does with what it reads. Kept by
 * hand from each company's crawler documentation (links in
 * docs/site-intelligence.md); the order is the order of the report.
 *
 * `kind`: `training` collects pages to train models; `search` indexes pages
 * that an assistant's answers cite; `user` fetches a page when a person asks
 * the assistant about it; `search-engine` is a search crawler whose index
 * also feeds AI answers; `control` is a robots.txt token only (no crawler of
 * its own) that says whether another crawler's pages may be used for AI.
 */
export type CrawlerKind = 'training' | 'search' | 'user' | 'search-engine' | 'control';

export interface AiCrawler {
  agent: string;
  company: string;
  kind: CrawlerKind;
  purpose: string;
  /**
   * Product tokens its User-Agent carries, for reading server logs
   * (src/logs/agents.ts): the agent's own name when left out, none for a
   * `control` token.
   */
  userAgents?: readonly string[];
  /** Where the company publishes the addresses it crawls from, for `sightline crawlers ranges load` (src/logs/ranges.ts). */
  ranges?: string;
}

export const AI_CRAWLERS: readonly AiCrawler[] = [
  {
    agent: 'GPTBot',
    company: 'OpenAI',
    kind: 'training',
    purpose: 'Collects public pages to train OpenAI’s models',
    ranges: 'https://openai.com/gptbot.json',
  },
  {
    agent: 'OAI-SearchBot',
    company: 'OpenAI',
    kind: 'search',
    purpose: 'Indexes pages that ChatGPT search shows and links to; not used for training',
    ranges: 'https://openai.com/searchbot.json',
  },
  {
    agent: 'ChatGPT-User',
    company: 'OpenAI',
    kind: 'user',
    purpose: 'Opens a page when a ChatGPT user or a custom GPT asks for it',
    ranges: 'https://openai.com/chatgpt-user.json',
  },
  {
    agent: 'ClaudeBot',
    company: 'Anthropic',
    kind: 'training',
    purpose: 'Collects public pages to train Anthropic’s Claude models',
  },
  {
    agent: 'Claude-User',
    company: 'Anthropic',
    kind: 'user',
    purpose: 'Opens a page when a Claude user asks about it',
  },
  {
    agent: 'Claude-SearchBot',
    company: 'Anthropic',
    kind: 'search',
    purpose: 'Indexes pages to improve the search results Claude answers from',
  },
  {
    agent: 'PerplexityBot',
    company: 'Perplexity',
    kind: 'search',
    purpose: 'Indexes pages that Perplexity’s answers cite; not used for training',
    ranges: 'https://www.perplexity.ai/perplexitybot.json',
  },
  {
    agent: 'Perplexity-User',
    company: 'Perplexity',
    kind: 'user',
    purpose: 'Opens a page when a Perplexity user asks about it',
    ranges: 'https://www.perplexity.ai/perplexity-user.json',
  },
  {
    agent: 'Google-Extended',
    company: 'Google',
    kind: 'control',
    purpose:
      'Token, not a crawler: whether pages Google crawls may train Gemini models and ground Gemini answers (Search and AI Overviews are not affected)',
  },
  {
    agent: 'Googlebot',
    company: 'Google',
    kind: 'search-engine',
    purpose: 'Google Search’s crawler; AI Overviews and AI Mode answer from its index',
    userAgents: ['Googlebot', 'Googlebot-Image', 'Googlebot-News', 'Googlebot-Video'],
    ranges: 'https://developers.google.com/static/search/apis/ipranges/googlebot.json',
  },
  {
    agent: 'Bingbot',
    company: 'Microsoft',
    kind: 'search-engine',
    purpose: 'Bing’s crawler; Copilot and other assistants answer from Bing’s index',
    ranges: 'https://www.bing.com/toolbox/bingbot.json',
  },
  {
    agent: 'Applebot',
    company: 'Apple',
    kind: 'search-engine',
    purpose: 'Apple’s crawler for Siri and Spotlight suggestions',
    ranges: 'https://search.developer.apple.com/applebot.json',
  },
  {
    agent: 'Applebot-Extended',
    company: 'Apple',
    kind: 'control',
    purpose: 'Token, not a crawler: whether pages Applebot reads may train Apple’s foundation models',
  },
  {
    agent: 'CCBot',
    company: 'Common Crawl',
    kind: 'training',
    purpose: 'Builds the open Common Crawl archive that many AI models are trained on',
  },
  {
    agent: 'meta-externalagent',
    company: 'Meta',
    kind: 'training',
    purpose: 'Collects pages to train Meta’s AI models and improve its products',
  },
  {
    agent: 'Bytespider',
    company: 'ByteDance',
    kind: 'training',
    purpose: 'Collects pages for ByteDance’s models (Doubao) and products',
  },
  {
    agent: 'Amazonbot',
    company: 'Amazon',
    kind: 'search',
    purpose: 'Indexes pages for Alexa’s answers and Amazon’s AI services',
  },
  {
    agent: 'DuckAssistBot',
    company: 'DuckDuckGo',
    kind: 'user',
    purpose: 'Reads pages in real time for DuckAssist’s answers; not used for training',
  },
  {
    agent: 'MistralAI-User',
    company: 'Mistral AI',
    kind: 'user',
    purpose: 'Opens a page when a Le Chat user asks about it',
  },
  {
    agent: 'Google-CloudVertexBot',
    company: 'Google',
    kind: 'search',
    purpose: 'Crawls a site for Vertex AI agents its owner builds on it',
  },
  {
    agent: 'meta-externalfetcher',
    company: 'Meta',
    kind: 'user',
    purpose: 'Opens a page when a Meta AI user asks about it or shares its link',
  },
];
