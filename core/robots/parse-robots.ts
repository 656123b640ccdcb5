/**
 * robots.txt parsing and matching, RFC 9309.
 *
 * Written by hand. npm `robots-parser` 3.0.1, measured against the corpus
 * (robots-vectors.json), passes 88 of 91 `rfc9309` vectors: it matches a raw UTF-8 URL against an
 * encoded rule (robots-053), reads a BOM in the middle of the file as part of a valid line
 * (robots-130), and sends an agent whose named group is empty to the `*` group (robots-141). It
 * also cannot say which rule on which line decided, which the crawl log and `trove robots test`
 * need, and it refuses URLs of another origin.
 *
 * Behaviour, in RFC 9309 terms:
 * - Groups are keyed by product token, compared case-insensitively; groups naming the same agent
 *   are merged; consecutive `User-agent` lines (blank lines between them allowed) share a group.
 *   Only an `Allow`/`Disallow` line ends a run of `User-agent` lines: blank lines, `Sitemap`,
 *   `Crawl-delay` and unknown lines do not (as Google's reference parser).
 * - Rules before the first `User-agent` are ignored. An agent with no group falls back to `*`; with
 *   no `*` group either, everything is allowed. A named group with no rules allows everything.
 * - Longest pattern (in octets, after normalisation, `*`/`$` counted) wins; a tie goes to Allow.
 *   An empty `Disallow:`/`Allow:` matches nothing.
 * - Directive names are case-insensitive, paths case-sensitive; `#` starts a comment; a UTF-8 BOM
 *   is skipped at the start only; LF, CRLF and CR all end lines.
 * - Only the first 512 KiB are parsed (RFC 9309 asks for at least 500 KiB). The cut is at the last
 *   line break before the limit, so no rule is read half-written; `truncated` reports it.
 * - `Crawl-delay` (not in RFC 9309, but every polite crawler reads it) is per group; when merged
 *   groups give several values the largest wins. `Sitemap` lines are collected from anywhere.
 */
import { robotsLineAgent } from './agent-token.ts';
import { fromOctets, normalizeOctets, patternMatches, urlMatchOctets } from './robots-path.ts';

/** RFC 9309 §2.5: parse at least 500 KiB. We parse 512 KiB and ignore the rest. */
export const ROBOTS_MAX_BYTES = 512 * 1024;

export interface RobotsRule {
  directive: 'allow' | 'disallow';
  /** The pattern as written in the file (UTF-8 text), e.g. `/private`. */
  pattern: string;
  /** 1-based line number in the file. */
  line: number;
}

export interface RobotsMatch {
  allowed: boolean;
  /** Agent token of the group used, as written in the file; `*`; or null when no group applies. */
  group: string | null;
  rule: RobotsRule | null;
}

/** One group as written, for the UI: who it names, its rules, its crawl delay. */
export interface RobotsGroupSummary {
  agents: string[];
  /** Line of the group's first `User-agent`. */
  line: number;
  rules: RobotsRule[];
  crawlDelay: number | null;
}

/** A line the parser read but did not use, with why (for the UI and `trove robots test`). */
export interface RobotsIgnoredLine {
  line: number;
  reason: 'rule-before-first-group' | 'unknown-directive' | 'no-colon' | 'bad-crawl-delay';
}

interface CompiledRule extends RobotsRule {
  /** Normalised octet string that is actually matched. */
  match: string;
}

interface Group {
  agents: Array<{ token: string; written: string }>;
  line: number;
  rules: CompiledRule[];
  crawlDelays: number[];
}

interface Selection {
  label: string | null;
  groups: Group[];
}

/** Keep the ignored-line list bounded; a 512 KiB file of junk should not make a 512 KiB report. */
const MAX_IGNORED_REPORTED = 200;

/** A parsed robots.txt. Immutable; `match` is safe to call from any number of queues. */
export class RobotsTxt {
  /** Sitemap URLs, in file order, as written. */
  readonly sitemaps: string[];
  readonly groups: RobotsGroupSummary[];
  readonly ignored: RobotsIgnoredLine[];
  /** True when the body was longer than ROBOTS_MAX_BYTES and the tail was not parsed. */
  readonly truncated: boolean;
  /** Lines read as a directive (User-agent, a rule in a group, Crawl-delay, Sitemap); see noUsableLine. */
  readonly usableLines: number;
  /** The bytes this was parsed from (at most ROBOTS_MAX_BYTES + 1), kept so it can be stored. */
  readonly source: Buffer;

  readonly #named = new Map<string, Group[]>();
  readonly #global: Group[] = [];
  readonly #selections = new Map<string, Selection>();

  constructor(source: Buffer, parsed: { groups: Group[]; sitemaps: string[]; ignored: RobotsIgnoredLine[]; truncated: boolean; usableLines: number }) {
    this.source = source;
    this.usableLines = parsed.usableLines;
    this.sitemaps = parsed.sitemaps;
    this.ignored = parsed.ignored;
    this.truncated = parsed.truncated;
    for (const group of parsed.groups) {
      const seen = new Set<string>();
      for (const { token } of group.agents) {
        const key = token.toLowerCase();
        if (key === '' || seen.has(key)) continue;
        seen.add(key);
        if (key === '*') this.#global.push(group);
        else this.#named.set(key, [...(this.#named.get(key) ?? []), group]);
      }
    }
    this.groups = parsed.groups.map((g) => ({
      agents: g.agents.map((a) => a.written),
      line: g.line,
      rules: g.rules.map(({ directive, pattern, line }) => ({ directive, pattern, line })),
      crawlDelay: g.crawlDelays.length > 0 ? Math.max(...g.crawlDelays) : null,
    }));
  }

  /**
   * Is `url` allowed for `agent` (a product token such as `Trove`; anything after the token, as
   * in `Trove/1.0`, is ignored)? `url` is matched as given: the caller percent-encodes it
   * (WHATWG `URL.href` already does).
   */
  match(agent: string, url: string): RobotsMatch {
    const selection = this.#select(agent);
    if (selection.groups.length === 0) return { allowed: true, group: null, rule: null };
    const path = urlMatchOctets(url);
    let best: CompiledRule | null = null;
    for (const group of selection.groups) {
      for (const rule of group.rules) {
        if (rule.match === '') continue;
        if (best !== null && rule.match.length < best.match.length) continue;
        if (best !== null && rule.match.length === best.match.length && best.directive === 'allow') continue;
        if (patternMatches(path, rule.match)) best = rule;
      }
    }
    const rule = best === null ? null : { directive: best.directive, pattern: best.pattern, line: best.line };
    return { allowed: best === null || best.directive === 'allow', group: selection.label, rule };
  }

  isAllowed(agent: string, url: string): boolean {
    return this.match(agent, url).allowed;
  }

  /** Crawl-delay in seconds from the group that applies to `agent`, or null when it gives none. */
  crawlDelay(agent: string): number | null {
    const delays = this.#select(agent).groups.flatMap((g) => g.crawlDelays);
    return delays.length > 0 ? Math.max(...delays) : null;
  }

  /** Does the file have a group naming this agent (the `*` group does not count)? */
  hasGroupFor(agent: string): boolean {
    const key = robotsLineAgent(agent).toLowerCase();
    return key !== '*' && key !== '' && this.#named.has(key);
  }

  #select(agent: string): Selection {
    const key = robotsLineAgent(agent).toLowerCase();
    let selection = this.#selections.get(key);
    if (selection === undefined) {
      const named = key === '*' || key === '' ? undefined : this.#named.get(key);
      if (named !== undefined) {
        const label = named[0]!.agents.find((a) => a.token.toLowerCase() === key)!.token;
        selection = { label, groups: named };
      } else {
        selection = { label: this.#global.length > 0 ? '*' : null, groups: this.#global };
      }
      this.#selections.set(key, selection);
    }
    return selection;
  }
}

/** Parse a robots.txt body. Never throws: RFC 9309 parsing is total, junk lines are ignored. */
export function parseRobots(body: Buffer | string): RobotsTxt {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const truncated = bytes.length > ROBOTS_MAX_BYTES;
  const source = truncated ? Buffer.from(bytes.subarray(0, ROBOTS_MAX_BYTES + 1)) : bytes;

  let text = source.toString('latin1');
  if (truncated) {
    const cut = Math.max(text.lastIndexOf('\n', ROBOTS_MAX_BYTES - 1), text.lastIndexOf('\r', ROBOTS_MAX_BYTES - 1));
    text = text.slice(0, cut + 1);
  }
  if (text.startsWith('\xEF\xBB\xBF')) text = text.slice(3);

  const groups: Group[] = [];
  const sitemaps: string[] = [];
  const ignored: RobotsIgnoredLine[] = [];
  const ignore = (line: number, reason: RobotsIgnoredLine['reason']) => {
    if (ignored.length < MAX_IGNORED_REPORTED) ignored.push({ line, reason });
  };
  let current: Group | null = null;
  let inAgentList = false;
  let usableLines = 0;

  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i]!;
    const hash = raw.indexOf('#');
    const content = trimWs(hash >= 0 ? raw.slice(0, hash) : raw);
    if (content === '') continue;
    const colon = content.indexOf(':');
    if (colon < 0) {
      ignore(lineNo, 'no-colon');
      continue;
    }
    const key = trimWs(content.slice(0, colon)).toLowerCase();
    const value = trimWs(content.slice(colon + 1));

    switch (key) {
      case 'user-agent': {
        if (current === null || !inAgentList) {
          current = { agents: [], line: lineNo, rules: [], crawlDelays: [] };
          groups.push(current);
        }
        const written = fromOctets(value);
        current.agents.push({ token: robotsLineAgent(written), written });
        inAgentList = true;
        usableLines++;
        break;
      }
      case 'allow':
      case 'disallow': {
        if (current === null) {
          ignore(lineNo, 'rule-before-first-group');
          break;
        }
        current.rules.push({ directive: key, pattern: fromOctets(value), line: lineNo, match: normalizeOctets(value, true) });
        inAgentList = false;
        usableLines++;
        break;
      }
      case 'crawl-delay': {
        const seconds = /^\d+(\.\d+)?$|^\.\d+$/.test(value) ? Number(value) : NaN;
        if (current === null) ignore(lineNo, 'rule-before-first-group');
        else if (!Number.isFinite(seconds)) ignore(lineNo, 'bad-crawl-delay');
        else {
          current.crawlDelays.push(seconds);
          usableLines++;
        }
        break;
      }
      case 'sitemap':
        if (value !== '') {
          sitemaps.push(fromOctets(value));
          usableLines++;
        }
        break;
      default:
        ignore(lineNo, 'unknown-directive');
    }
  }
  return new RobotsTxt(source, { groups, sitemaps, ignored, truncated, usableLines });
}

const IGNORED_WORDS: Record<RobotsIgnoredLine['reason'], string> = {
  'no-colon': 'no colon after the field name',
  'rule-before-first-group': 'a rule before any User-agent line',
  'unknown-directive': 'an unknown field',
  'bad-crawl-delay': 'a Crawl-delay that is not a number',
};

/**
 * The "no usable line" diagnostic: text that is not blank, yet not one line of it is a directive
 * (`User-agent *` without its colon, say). Parsing stays total (RFC 9309), so such a file allows
 * everything; a robots.txt someone wrote by hand should say so rather than quietly crawl as
 * allow-all. Null when some line is usable or there is no text.
 */
export function noUsableLine(robots: RobotsTxt): string | null {
  if (robots.usableLines > 0 || robots.ignored.length === 0) return null;
  const shown = robots.ignored.slice(0, 3).map((l) => `line ${l.line}: ${IGNORED_WORDS[l.reason]}`);
  const more = robots.ignored.length > shown.length ? `, and ${robots.ignored.length - shown.length} more` : '';
  return `no usable line (${shown.join('; ')}${more}): as written it allows everything`;
}

/** RFC 9309 whitespace is space and tab; `String.trim` would also eat U+00A0, a UTF-8 octet here. */
function trimWs(s: string): string {
  return s.replace(/^[ \t]+|[ \t]+$/g, '');
}
