/**
 * A realistic access log in the combined format, generated: people reading
 * pages (and the scripts, styles and images the pages load), some of them
 * sent by an assistant (a chatgpt.com or perplexity.ai Referer, a
 * `utm_source=chatgpt.com` link), search engines, AI crawlers and the
 * fetchers assistants send when a person asks, SEO bots and monitors; mostly
 * 200s, with redirects, not-modifieds, 404s and the odd 5xx. Seeded, so the
 * same options give the same bytes: the demo site writes one for its
 * newcomer's first report, the crawler traffic bench a gigabyte of it.
 *
 * Crawler addresses sit in documentation ranges (198.51.100.0/24 and
 * 203.0.113.0/24, RFC 5737), people's in 192.0.2.0/24 and made-up public
 * blocks; none is anyone's.
 */

export interface AccessLogOptions {
  /** Paths of the site's pages, most visited first. */
  pages: readonly string[];
  /** Host written in Referers from the site itself. */
  host: string;
  /** First and last instant of the log (ms). */
  from: number;
  to: number;
  lines: number;
  seed?: number;
}

/** mulberry32: a small, fast seeded generator; quality enough for a log. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
];

/** [User-Agent, weight in ‰ of all lines, address block]: the AI agents of src/web/ai-crawlers.ts, then other bots. */
const BOTS: [string, number, string][] = [
  [
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    80,
    '66.249.66',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
    40,
    '40.77.167',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    35,
    '198.51.100',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    25,
    '203.0.113',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)',
    15,
    '198.51.100',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)',
    12,
    '198.51.100',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
    10,
    '203.0.113',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
    4,
    '203.0.113',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    8,
    '17.241.219',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36',
    7,
    '52.70.240',
  ],
  ['meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)', 6, '57.141.0'],
  [
    'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
    5,
    '110.249.201',
  ],
  ['CCBot/2.0 (https://commoncrawl.org/faq/)', 3, '18.97.9'],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
    3,
    '203.0.113',
  ],
  ['DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)', 2, '20.191.45'],
  ['Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)', 60, '5.39.1'],
  ['Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)', 45, '185.191.171'],
  ['Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)', 20, '69.162.124'],
  ['curl/8.5.0', 10, '192.0.2'],
];

/** Where people come from: [Referer or null, utm_source or null, weight]. */
const ARRIVALS: [string | null, string | null, number][] = [
  [null, null, 400],
  ['https://www.google.com/', null, 400],
  ['https://www.bing.com/', null, 60],
  ['https://duckduckgo.com/', null, 30],
  ['https://news.ycombinator.com/', null, 20],
  ['https://chatgpt.com/', null, 12],
  [null, 'chatgpt.com', 10],
  ['https://www.perplexity.ai/', null, 6],
  ['https://gemini.google.com/', null, 3],
  ['https://copilot.microsoft.com/', null, 2],
  ['https://claude.ai/', null, 2],
];

const ASSETS = ['/assets/app.js', '/assets/app.css', '/assets/logo.svg', '/assets/hero.webp', '/favicon.ico'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => (n < 10 ? `0${n}` : String(n));

function clf(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

function weighted<T extends unknown[]>(items: T[], weight: (t: T) => number, rnd: () => number): () => T {
  let total = 0;
  const cumulative = items.map((t) => (total += weight(t)));
  return () => {
    const x = rnd() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) > x) hi = mid;
      else lo = mid + 1;
    }
    return items[lo] as T;
  };
}

/** The log's lines in time order, a block of lines (one string, newline-ended) at a time. */
export function* accessLog(options: AccessLogOptions, blockLines = 10_000): Generator<string> {
  const rnd = random(options.seed ?? 28);
  const bot = weighted(BOTS, (b) => b[1], rnd);
  const arrival = weighted(ARRIVALS, (a) => a[2], rnd);
  // 39% of lines are bots (their weights above are ‰ of all lines; 25.5% are AI agents of the table), the rest people.
  const botShare = BOTS.reduce((s, b) => s + b[1], 0) / 1000;
  // Popular pages first: a page's weight falls with its rank (Zipf, s = 1).
  const pageOf = weighted(
    options.pages.map((p, i) => [p, 1 / (i + 1)] as [string, number]),
    (p) => p[1],
    rnd,
  );
  const span = options.to - options.from;
  let block: string[] = [];
  let second = NaN;
  let time = '';
  for (let i = 0; i < options.lines; i++) {
    const at = options.from + Math.floor((span * i) / options.lines);
    if (Math.floor(at / 1000) !== second) {
      second = Math.floor(at / 1000);
      time = clf(at);
    }
    const r = rnd();
    let ip: string;
    let ua: string;
    let path: string;
    let referer = '-';
    if (r < botShare) {
      const [agent, , block24] = bot();
      ua = agent;
      ip = `${block24}.${1 + Math.floor(rnd() * 120)}`;
      path = rnd() < 0.02 ? '/robots.txt' : pageOf()[0];
    } else {
      ua = BROWSERS[Math.floor(rnd() * BROWSERS.length)] as string;
      ip = `192.0.2.${1 + Math.floor(rnd() * 250)}`;
      if (rnd() < 0.45) {
        path = ASSETS[Math.floor(rnd() * ASSETS.length)] as string;
        referer = `https://${options.host}${pageOf()[0]}`;
      } else {
        path = pageOf()[0];
        const [from, utm] = arrival();
        if (from) referer = from;
        if (utm) path = `${path}?utm_source=${utm}`;
      }
    }
    const s = rnd();
    const status = s < 0.9 ? 200 : s < 0.95 ? 304 : s < 0.98 ? 404 : s < 0.99 ? 301 : s < 0.997 ? 500 : 503;
    const bytes =
      status === 200 ? 2000 + Math.floor(rnd() * 60_000) : status === 304 ? 0 : 150 + Math.floor(rnd() * 400);
    block.push(`${ip} - - [${time}] "GET ${path} HTTP/1.1" ${status} ${bytes} "${referer}" "${ua}"\n`);
    if (block.length >= blockLines) {
      yield block.join('');
      block = [];
    }
  }
  if (block.length) yield block.join('');
}
