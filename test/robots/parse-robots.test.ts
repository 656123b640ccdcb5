import { describe, expect, it } from 'vitest';
import { parseRobots, ROBOTS_MAX_BYTES } from '../../core/robots/parse-robots.ts';
import { escapeRulePattern, matchPathOf, patternMatches } from '../../core/robots/robots-path.ts';
import { rfc9309Vectors, robotsPathVectors, robotsVectors, type RobotsVector } from './vectors.ts';

/** The corpus README: write the JSON string body as UTF-8 bytes before parsing. */
function check(v: RobotsVector): boolean {
  const robots = parseRobots(Buffer.from(v.robots, 'utf8'));
  let ok = robots.match(v.agent, v.url).allowed === v.allowed;
  if (v.crawlDelay !== undefined) ok &&= robots.crawlDelay(v.agent) === v.crawlDelay;
  if (v.sitemaps !== undefined) ok &&= JSON.stringify(robots.sitemaps) === JSON.stringify(v.sitemaps);
  return ok;
}

describe('RFC 9309 vectors (corpus robots-vectors.json)', () => {
  it('has rfc9309 vectors to run', () => {
    expect(rfc9309Vectors.length).toBeGreaterThan(80);
  });

  it.each(rfc9309Vectors.map((v) => [v.id, v] as const))('%s', (_id, v) => {
    const robots = parseRobots(Buffer.from(v.robots, 'utf8'));
    expect(robots.match(v.agent, v.url).allowed, v.note ?? v.source).toBe(v.allowed);
    expect(robots.isAllowed(v.agent, v.url)).toBe(v.allowed);
    if (v.crawlDelay !== undefined) expect(robots.crawlDelay(v.agent)).toBe(v.crawlDelay);
    if (v.sitemaps !== undefined) expect(robots.sitemaps).toEqual(v.sitemaps);
  });

  it('google- and heritrix-only vectors: the ones we do not follow are exactly the documented ones', () => {
    const others = robotsVectors.filter((v) => v.semantics !== 'rfc9309');
    const failing = others.filter((v) => !check(v)).map((v) => v.id);
    // robots-056: RFC 9309's table decodes %62%61%7A to "baz"; Google does not.
    // robots-068: Google-only "index.html means the directory".
    // robots-076: Google-only cut of lines at 16,664 bytes.
    // robots-178: Heritrix-only stripping of HTML markup.
    expect(failing).toEqual(['robots-056', 'robots-068', 'robots-076', 'robots-178']);
    const passed = (s: string) => others.filter((v) => v.semantics === s && check(v)).length;
    const total = (s: string) => others.filter((v) => v.semantics === s).length;
    console.info(`robots vectors: google ${passed('google')}/${total('google')}, heritrix ${passed('heritrix')}/${total('heritrix')}`);
  });
});

describe('match path and pattern escaping (corpus robots-path-vectors.json)', () => {
  it.each(robotsPathVectors.url_to_match_path.map((v) => [v.url, v.path] as const))('match path of %j is %j', (url, path) => {
    expect(matchPathOf(url)).toBe(path);
  });

  it.each(robotsPathVectors.pattern_escaping.map((v) => [v.pattern, v.escaped] as const))('pattern %j is escaped as %j', (pattern, escaped) => {
    expect(escapeRulePattern(pattern)).toBe(escaped);
  });

  it('decodes percent-encoded unreserved characters on both sides (RFC 9309 table)', () => {
    expect(escapeRulePattern('/foo/bar/%62%61%7A')).toBe('/foo/bar/baz');
    expect(escapeRulePattern('/a%2fb%3a')).toBe('/a%2Fb%3A');
    const robots = parseRobots('User-agent: *\nDisallow: /%7euser/\n');
    expect(robots.isAllowed('x', 'http://h/~user/page')).toBe(false);
    expect(robots.isAllowed('x', 'http://h/%7Euser/page')).toBe(false);
    expect(robots.isAllowed('x', 'http://h/%7user/page')).toBe(true);
  });

  it('keeps reserved characters encoded, so %2F is not a path separator', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /a/b\n');
    expect(robots.isAllowed('x', 'http://h/a%2Fb')).toBe(true);
    expect(robots.isAllowed('x', 'http://h/a/b')).toBe(false);
  });

  it('matches wildcards without backtracking blow-up', () => {
    const pattern = `/${'*a'.repeat(200)}$`;
    const path = `/${'a'.repeat(3000)}b`;
    // No timing bound: a blow-up would not finish within the test's timeout; speed belongs to benchmarks.
    expect(patternMatches(path, pattern)).toBe(false);
    expect(patternMatches(`/${'a'.repeat(3000)}`, pattern)).toBe(true);
  });
});

describe('parseRobots: our own cases', () => {
  const file = [
    'Sitemap: https://example.com/s1.xml', // 1
    'User-agent: *', // 2
    'Disallow: /private # keep out', // 3
    'Crawl-delay: 2.5', // 4
    '', // 5
    'User-agent: Trove', // 6
    'user-agent: OtherBot/2.0 (comment)', // 7
    'Allow: /private/ok', // 8
    'Disallow: /private', // 9
    'Crawl-delay: nope', // 10
    'Noindex: /x', // 11
    'sitemap: https://example.com/s2.xml', // 12
  ].join('\r\n');
  const robots = parseRobots(file);

  it('reports the rule, its line and the group that decided', () => {
    expect(robots.match('Trove', 'http://example.com/private/ok/1')).toEqual({
      allowed: true,
      group: 'Trove',
      rule: { directive: 'allow', pattern: '/private/ok', line: 8 },
    });
    expect(robots.match('trove', 'http://example.com/private/x')).toEqual({
      allowed: false,
      group: 'Trove',
      rule: { directive: 'disallow', pattern: '/private', line: 9 },
    });
    expect(robots.match('SomeBot', 'http://example.com/private')).toEqual({
      allowed: false,
      group: '*',
      rule: { directive: 'disallow', pattern: '/private', line: 3 },
    });
    expect(robots.match('SomeBot', 'http://example.com/public')).toEqual({ allowed: true, group: '*', rule: null });
  });

  it('reads the product token from a user-agent value with version and comment', () => {
    expect(robots.hasGroupFor('otherbot')).toBe(true);
    expect(robots.hasGroupFor('Trove/0.1.0')).toBe(true);
    expect(robots.hasGroupFor('SomeBot')).toBe(false);
    expect(robots.hasGroupFor('*')).toBe(false);
    expect(robots.match('OtherBot', 'http://example.com/private/ok').group).toBe('OtherBot');
  });

  it('crawl-delay: from the applicable group only; bad values ignored', () => {
    expect(robots.crawlDelay('SomeBot')).toBe(2.5);
    expect(robots.crawlDelay('Trove')).toBeNull();
  });

  it('sitemaps from anywhere in the file; groups and ignored lines summarised for the UI', () => {
    expect(robots.sitemaps).toEqual(['https://example.com/s1.xml', 'https://example.com/s2.xml']);
    expect(robots.groups).toEqual([
      { agents: ['*'], line: 2, rules: [{ directive: 'disallow', pattern: '/private', line: 3 }], crawlDelay: 2.5 },
      {
        agents: ['Trove', 'OtherBot/2.0 (comment)'],
        line: 6,
        rules: [
          { directive: 'allow', pattern: '/private/ok', line: 8 },
          { directive: 'disallow', pattern: '/private', line: 9 },
        ],
        crawlDelay: null,
      },
    ]);
    expect(robots.ignored).toEqual([
      { line: 10, reason: 'bad-crawl-delay' },
      { line: 11, reason: 'unknown-directive' },
    ]);
    expect(robots.truncated).toBe(false);
  });

  it('takes the largest crawl-delay when groups for one agent are merged', () => {
    const r = parseRobots('User-agent: a\nCrawl-delay: 3\nDisallow: /x\n\nUser-agent: A\nCrawl-delay: 10\n');
    expect(r.crawlDelay('a')).toBe(10);
    expect(r.groups.map((g) => g.crawlDelay)).toEqual([3, 10]);
  });

  it('empty or whitespace-only bodies allow everything', () => {
    for (const body of ['', '\n\n', '   \r\n\t', Buffer.alloc(0)]) {
      expect(parseRobots(body).match('Trove', 'http://h/anything')).toEqual({ allowed: true, group: null, rule: null });
    }
  });

  it('survives bytes that are not UTF-8 and non-ASCII rules (octet matching)', () => {
    // Latin-1 "é" (0xE9) in a rule matches the URL that percent-encodes that byte.
    const body = Buffer.concat([Buffer.from('User-agent: *\nDisallow: /caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const r = parseRobots(body);
    expect(r.isAllowed('x', 'http://h/caf%E9')).toBe(false);
    expect(r.isAllowed('x', 'http://h/caf%e9/menu')).toBe(false);
    expect(r.isAllowed('x', 'http://h/caf%C3%A9')).toBe(true);
    // A UTF-8 rule with U+00E0 (bytes C3 A0): A0 must not be trimmed away as whitespace.
    const utf8 = parseRobots('User-agent: *\nDisallow: /voil\u00e0\n');
    expect(utf8.groups[0]!.rules[0]!.pattern).toBe('/voil\u00e0');
    expect(utf8.isAllowed('x', 'http://h/voil%C3%A0')).toBe(false);
    expect(utf8.isAllowed('x', 'http://h/voil%C3')).toBe(true);
  });

  it('longest match counts octets of the encoded pattern; a tie goes to Allow', () => {
    const r = parseRobots('User-agent: *\nDisallow: /\u30c4\nAllow: /%E3%83%84\n');
    expect(r.match('x', 'http://h/%E3%83%84').rule).toEqual({ directive: 'allow', pattern: '/%E3%83%84', line: 3 });
  });

  it(`parses at least 500 KiB and stops at ${ROBOTS_MAX_BYTES} bytes, at a line break`, () => {
    // 20,800 lines of 25 bytes: 520,000 bytes, over 500 KiB and under the 512 KiB limit.
    const filler = Array.from({ length: 20_800 }, (_, i) => `Disallow: /filler/${String(i).padStart(6, '0')}`);
    const head = ['User-agent: *', 'Disallow: /first', ...filler].join('\n');
    const headBytes = Buffer.byteLength(head);
    expect(headBytes).toBeGreaterThan(500 * 1024);
    expect(headBytes).toBeLessThan(ROBOTS_MAX_BYTES - 64);
    // A rule straddling the limit must be dropped whole, not read as the shorter "/prefix".
    // The limit falls right after "Allow: /prefix" on that line.
    const pad = 'x'.repeat(ROBOTS_MAX_BYTES - 'Allow: /prefix'.length - headBytes - 3);
    const body = `${head}\n#${pad}\nAllow: /prefix-longer-than-the-limit\nDisallow: /after\n`;
    const r = parseRobots(body);
    expect(r.truncated).toBe(true);
    expect(r.isAllowed('x', 'http://h/first')).toBe(false);
    expect(r.isAllowed('x', 'http://h/filler/020799')).toBe(false);
    expect(body.slice(0, ROBOTS_MAX_BYTES).endsWith('\nAllow: /prefix')).toBe(true);
    expect(r.match('x', 'http://h/prefix').rule).toBeNull();
    // Rules past the limit are not read.
    expect(r.isAllowed('x', 'http://h/after')).toBe(true);
    expect(r.groups[0]!.rules.at(-1)!.pattern).toBe('/filler/020799');
    expect(r.source.length).toBe(ROBOTS_MAX_BYTES + 1);
  });

  it('a many-rule file still matches quickly', () => {
    const rules = Array.from({ length: 5000 }, (_, i) => `Disallow: /*/section-${i}/*.pdf$`).join('\n');
    const r = parseRobots(`User-agent: *\n${rules}\n`);
    // No timing bound: a blow-up would not finish within the test's timeout; speed belongs to benchmarks.
    for (let i = 0; i < 200; i++) r.isAllowed('x', `http://h/a/b/section-${i}/doc-${i}.pdf?x=${'y'.repeat(100)}`);
    expect(r.isAllowed('x', 'http://h/en/section-42/report.pdf')).toBe(false);
    expect(r.isAllowed('x', 'http://h/en/section-42/report.pdf?dl=1')).toBe(true);
  });
});
