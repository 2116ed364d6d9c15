/**
 * robots.txt (RFC 9309), read here with the semantics of robots-parser 3
 * (itself Google's robotstxt matching): the group of the crawler's product
 * token, else `*`; groups naming the same token merge; the longest matching
 * rule decides and `Allow` wins a tie; `*` and a final `$` in paths. On top
 * of it: what a crawler may read of the whole site (`allowed`, `partial`,
 * `blocked`) and the line that decides it.
 *
 * Why not robots-parser itself: a site's robots.txt is hostile input, and
 * the package was not bounded. It copies each rule into every user-agent of
 * its group (100 KB of `User-agent` lines then `Disallow` lines took 13 s and
 * 1.5 GB; 200 KB ran the process out of memory) and matches a rule in time
 * pattern x path (400 KB of `*` cost 3 s per URL checked). Here a group's
 * rules are kept once, whatever its number of agents, and a rule is split at
 * its `*`s once and matched by a leftmost search of each piece (a `*` matches
 * anything, so the earliest place for each piece is as good as any): time
 * path + pattern. test/unit/web/robots.test.ts checks it decides as
 * robots-parser does on generated files.
 *
 * Limits, past which the file is still read and the note says what was not:
 * - ROBOTS_MAX_BYTES: RFC 9309's 500 KiB (the fetch cuts the file there);
 * - ROBOTS_LINE_MAX: a longer line is ignored (Google reads 2,083 x 8
 *   characters of a line and drops the rest; ignoring the whole line never
 *   makes a rule forbid more than it says);
 * - ROBOTS_MAX_RULES: Allow and Disallow lines past it are ignored, which
 *   bounds a check to rules x URL length.
 */

/** RFC 9309 §2.5: a crawler must read at least 500 KiB of robots.txt; what follows is not read, so neither do we. */
export const ROBOTS_MAX_BYTES = 500 * 1024;
/** Google's robotstxt kMaxLineLen (2,083 x 8): no real rule is near it. */
export const ROBOTS_LINE_MAX = 16_664;
/** Rules read per file: large sites' files have hundreds to a few thousand. */
export const ROBOTS_MAX_RULES = 10_000;

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
  /** The path pattern as matched (percent-encoding normalised), whose length ranks it. */
  pattern: string;
  allow: boolean;
  lineNumber: number;
  /** The pattern split at its `*`s, without a final `$`. */
  pieces: string[];
  /** A final `$`: the path must end where the pattern does. */
  anchored: boolean;
}

export interface RobotsTxt {
  /** The robots.txt address the rules apply to (its origin's paths). */
  url: string;
  sitemaps: string[];
  /** Lines that are neither rules, comments nor blank: junk, or an HTML page served as robots.txt. */
  unreadLines: number;
  /** What was not read past this file's limits, for the customer ("2 lines longer than ..."). */
  notes: string[];
  /** Whether `url` (absolute, same origin) may be read by `agent`. */
  isAllowed(url: string, agent: string): boolean;
  access(agent: string): CrawlerAccess;
}

const KNOWN = new Set([
  'user-agent',
  'allow',
  'disallow',
  'sitemap',
  'crawl-delay',
  'host',
  'clean-param',
  'request-rate',
  'visit-time',
  'noindex',
]);
const LINE_TEXT_MAX = 300;

/** A product token as robots-parser compares them: lower case, without a `/version`. */
function tokenOf(userAgent: string): string {
  const lower = userAgent.toLowerCase();
  const slash = lower.indexOf('/');
  return (slash >= 0 ? lower.slice(0, slash) : lower).trim();
}

const upperEscapes = (path: string) => path.replace(/%[0-9a-fA-F]{2}/g, (m) => m.toUpperCase());

/** robots-parser's normalisation of a pattern: non-ASCII percent-encoded, escapes upper case. */
function normalisePattern(pattern: string): string {
  try {
    return upperEscapes(encodeURI(pattern).replace(/%25/g, '%'));
  } catch {
    // A lone surrogate cannot be encoded; the pattern is compared as written.
    return pattern;
  }
}

function ruleOf(value: string, allow: boolean, lineNumber: number): Rule {
  const pattern = normalisePattern(value);
  const anchored = pattern.endsWith('$');
  const pieces = (anchored ? pattern.slice(0, -1) : pattern).split('*');
  // `**` matches what `*` does: empty pieces between two `*`s are dropped (the first and last say where the pattern starts and ends).
  const kept =
    pieces.length > 2 ? [pieces[0] as string, ...pieces.slice(1, -1).filter(Boolean), pieces.at(-1) as string] : pieces;
  return { pattern, allow, lineNumber, anchored, pieces: kept };
}

/** Whether `rule` matches the start of `path` (all of it when anchored): each piece at its first place after the one before. */
function matches(rule: Rule, path: string): boolean {
  const { pieces, anchored } = rule;
  const last = pieces.length - 1;
  if (!path.startsWith(pieces[0] as string)) return false;
  if (last === 0) return !anchored || path.length === (pieces[0] as string).length;
  let at = (pieces[0] as string).length;
  for (let i = 1; i < last; i++) {
    const found = path.indexOf(pieces[i] as string, at);
    if (found < 0) return false;
    at = found + (pieces[i] as string).length;
  }
  const tail = pieces[last] as string;
  return anchored ? path.length - tail.length >= at && path.endsWith(tail) : path.indexOf(tail, at) >= 0;
}

/** The longest matching rule; of two as long, Allow. Null when none matches. */
function decide(rules: readonly Rule[], path: string): Rule | null {
  let best: Rule | null = null;
  for (const rule of rules) {
    if (!matches(rule, path)) continue;
    if (
      !best ||
      rule.pattern.length > best.pattern.length ||
      (rule.pattern.length === best.pattern.length && rule.allow && !best.allow)
    )
      best = rule;
  }
  return best;
}

/** `truncated`: the text was cut at ROBOTS_MAX_BYTES, so its last, partial line is dropped. */
export function parseRobotsTxt(robotsUrl: string, text: string, truncated = false): RobotsTxt {
  let body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (truncated) body = body.slice(0, Math.max(body.lastIndexOf('\n'), body.lastIndexOf('\r')) + 1);
  const lines = body.split(/\r\n|\r|\n/);

  // Each group's rules once; each token to the groups naming it, in file order.
  const groups = new Map<string, Rule[][]>();
  const sitemaps: string[] = [];
  let agents = new Set<string>();
  let rules: Rule[] | null = null;
  let inAgentLines = false;
  let unreadLines = 0;
  let longLines = 0;
  let ruleCount = 0;
  let rulesIgnored = 0;

  for (const [index, line] of lines.entries()) {
    const content = line.split('#', 1)[0] as string;
    const colon = content.indexOf(':');
    if (content.trim() === '') continue;
    const key = colon < 0 ? '' : content.slice(0, colon).trim().toLowerCase();
    if (!KNOWN.has(key)) unreadLines++;
    // robots-parser skips a line without a key; any other line that is not a User-agent ends a run of them.
    if (key === '') continue;
    const long = content.length > ROBOTS_LINE_MAX;
    if (long) longLines++;
    const value = long ? '' : content.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!inAgentLines) {
        agents = new Set();
        rules = null;
      }
      inAgentLines = true;
      if (value) agents.add(tokenOf(value));
      continue;
    }
    inAgentLines = false;
    if (key === 'sitemap') {
      if (value) sitemaps.push(value);
    } else if ((key === 'allow' || key === 'disallow' || key === 'crawl-delay') && agents.size > 0) {
      // A rule line makes its group exist for its agents, even an empty Disallow (robots-parser's addRule).
      if (!rules) {
        const group: Rule[] = (rules = []);
        for (const agent of agents) {
          const named = groups.get(agent);
          if (named) named.push(group);
          else groups.set(agent, [group]);
        }
      }
      if (key === 'crawl-delay' || !value) continue;
      if (ruleCount >= ROBOTS_MAX_RULES) rulesIgnored++;
      else {
        ruleCount++;
        rules.push(ruleOf(value, key === 'allow', index + 1));
      }
    }
  }

  const origin = new URL(robotsUrl);
  const port = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : '80');
  const merged = new Map<string, { name: string; rules: Rule[] } | null>();
  const groupFor = (agent: string): { name: string; rules: Rule[] } | null => {
    const token = tokenOf(agent || '*');
    if (!merged.has(token)) {
      const name = groups.has(token) ? token : groups.has('*') ? '*' : null;
      merged.set(token, name === null ? null : { name, rules: (groups.get(name) as Rule[][]).flat() });
    }
    return merged.get(token) ?? null;
  };
  /** The deciding rule for a URL, null when none decides, undefined when the URL is not on this file's origin. */
  const ruleFor = (url: string, agent: string): Rule | null | undefined => {
    let u: URL;
    try {
      u = new URL(url, 'http://robots-relative.invalid/');
    } catch {
      return undefined;
    }
    if (u.protocol !== origin.protocol || u.hostname !== origin.hostname || port(u) !== port(origin)) return undefined;
    return decide(groupFor(agent)?.rules ?? [], upperEscapes(u.pathname + u.search));
  };
  const lineAt = (rule: Rule | null | undefined): DecidingLine | null =>
    rule ? { line: rule.lineNumber, text: (lines[rule.lineNumber - 1] ?? '').trim().slice(0, LINE_TEXT_MAX) } : null;

  const notes: string[] = [];
  if (longLines > 0)
    notes.push(
      `${longLines.toLocaleString('en-US')} lines longer than ${ROBOTS_LINE_MAX.toLocaleString('en-US')} characters were ignored`,
    );
  if (rulesIgnored > 0)
    notes.push(
      `robots.txt has more than ${ROBOTS_MAX_RULES.toLocaleString('en-US')} rules; the ${rulesIgnored.toLocaleString('en-US')} after the first ${ROBOTS_MAX_RULES.toLocaleString('en-US')} were ignored`,
    );

  return {
    url: robotsUrl,
    sitemaps,
    unreadLines,
    notes,
    isAllowed: (url, agent) => ruleFor(url, agent)?.allow ?? true,
    access(agent) {
      const group = groupFor(agent);
      const rootRule = ruleFor(`${origin.origin}/`, agent);
      const rootAllowed = rootRule?.allow ?? true;
      const rules = group?.rules ?? [];
      if (!rootAllowed)
        return {
          access: rules.some((r) => r.allow) ? 'partial' : 'blocked',
          decidingLine: lineAt(rootRule),
          group: group?.name ?? null,
        };
      const firstDisallow = rules.filter((r) => !r.allow).sort((a, b) => a.lineNumber - b.lineNumber)[0];
      if (firstDisallow) return { access: 'partial', decidingLine: lineAt(firstDisallow), group: group?.name ?? null };
      return { access: 'allowed', decidingLine: lineAt(rootRule), group: group?.name ?? null };
    },
  };
}
