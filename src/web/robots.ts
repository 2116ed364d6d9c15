import robotsParserModule from 'robots-parser';

/**
 * robots.txt read with robots-parser (RFC 9309 matching: the group of the
 * crawler's product token, else `*`; the longest matching rule decides, and
 * `Allow` wins a tie; `*` and `$` in paths). On top of it: what a crawler may
 * read of the whole site (`allowed`, `partial`, `blocked`) and the line that
 * decides it.
 */

/** RFC 9309 §2.5: a crawler must read at least 500 KiB of robots.txt; what follows is not read, so neither do we. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

export type Access = 'allowed' | 'partial' | 'blocked';

export interface DecidingLine {
  line: number;
  text: string;
}

export interface CrawlerAccess {
  access: Access;
  decidingLine: DecidingLine | null;
  /** The user-agent group that applies (`*` or the agent's token, lower case); null when none does. */
  group: string | null;
}

interface Rule {
  pattern: string;
  allow: boolean;
  lineNumber: number;
}

interface Parsed {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getMatchingLineNumber(url: string, ua?: string): number;
  getSitemaps(): string[];
}

// The package's own .d.ts opens with an ambient `declare module`, which TypeScript (nodenext) reads as a
// namespace without a call signature; at run time the default export is the parser function.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => Parsed;

export interface RobotsTxt {
  /** The robots.txt address the rules apply to (its origin's paths). */
  url: string;
  sitemaps: string[];
  /** Lines that are neither rules, comments nor blank: junk, or an HTML page served as robots.txt. */
  unreadLines: number;
  /** Whether `url` (absolute, same origin) may be read by `agent`. */
  isAllowed(url: string, agent: string): boolean;
  access(agent: string): CrawlerAccess;
}

const KNOWN = new Set(['user-agent', 'allow', 'disallow', 'sitemap', 'crawl-delay', 'host', 'clean-param', 'request-rate', 'visit-time', 'noindex']);
const LINE_TEXT_MAX = 300;

/**
 * robots-parser decides with a group's rules but does not expose them, and
 * "partial" needs them (a Disallow somewhere below an allowed root). Its rule
 * table is read here and only here; test/unit/web/robots.test.ts fails if an
 * upgrade changes its shape.
 */
function groupOf(parsed: Parsed, agent: string): { name: string; rules: Rule[] } | null {
  const table = (parsed as unknown as { _rules?: Record<string, Rule[]> })._rules;
  if (!table || typeof table !== 'object') throw new Error('robots-parser no longer exposes its rule table; see src/web/robots.ts');
  const token = agent.toLowerCase();
  const own = table[token];
  if (own) return { name: token, rules: own };
  const any = table['*'];
  return any ? { name: '*', rules: any } : null;
}

/** `truncated`: the text was cut at ROBOTS_MAX_BYTES, so its last, partial line is dropped. */
export function parseRobotsTxt(robotsUrl: string, text: string, truncated = false): RobotsTxt {
  let body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (truncated) body = body.slice(0, Math.max(body.lastIndexOf('\n'), body.lastIndexOf('\r')) + 1);
  const parsed = robotsParser(robotsUrl, body);
  // The same line split as robots-parser, so its line numbers index this array.
  const lines = body.split(/\r\n|\r|\n/);
  let unreadLines = 0;
  for (const line of lines) {
    const content = line.split('#', 1)[0]?.trim() ?? '';
    if (content === '') continue;
    const colon = content.indexOf(':');
    if (colon < 0 || !KNOWN.has(content.slice(0, colon).trim().toLowerCase())) unreadLines++;
  }
  const origin = new URL(robotsUrl).origin;
  const lineAt = (n: number): DecidingLine | null => (n > 0 ? { line: n, text: (lines[n - 1] ?? '').trim().slice(0, LINE_TEXT_MAX) } : null);

  return {
    url: robotsUrl,
    sitemaps: parsed.getSitemaps(),
    unreadLines,
    isAllowed: (url, agent) => parsed.isAllowed(url, agent) !== false,
    access(agent) {
      const group = groupOf(parsed, agent);
      const root = `${origin}/`;
      const rootAllowed = parsed.isAllowed(root, agent) !== false;
      const rootLine = lineAt(parsed.getMatchingLineNumber(root, agent));
      const rules = group?.rules ?? [];
      if (!rootAllowed) return { access: rules.some((r) => r.allow) ? 'partial' : 'blocked', decidingLine: rootLine, group: group?.name ?? null };
      const firstDisallow = rules.filter((r) => !r.allow).sort((a, b) => a.lineNumber - b.lineNumber)[0];
      if (firstDisallow) return { access: 'partial', decidingLine: lineAt(firstDisallow.lineNumber), group: group?.name ?? null };
      return { access: 'allowed', decidingLine: rootLine, group: group?.name ?? null };
    },
  };
}
