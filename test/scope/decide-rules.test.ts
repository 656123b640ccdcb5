import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../core/api/settings.ts';
import { isTroveError } from '../../core/errors.ts';
import { buildScope, scopeSettingsFrom } from '../../core/scope/decide-rules.ts';
import type { ScopeSettings } from '../../core/scope/decide-rules.ts';
import { formatDecision } from '../../core/scope/format-decision.ts';

function settings(over: Partial<ScopeSettings> = {}): ScopeSettings {
  return { ...scopeSettingsFrom(defaultSettings()), ...over };
}

const SEED = 'https://example.com/docs/';

function judge(url: string, hopsPath = 'L', over: Partial<ScopeSettings> = {}, seeds = [SEED]) {
  return buildScope(settings(over), seeds).decide({ url, hopsPath, via: SEED });
}

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    if (isTroveError(e)) return e.code;
    throw e;
  }
}

describe('the default sequence', () => {
  it('lists the rules in Heritrix order', () => {
    const names = buildScope(settings(), [SEED])
      .describe()
      .map((l) => /^\d+\. ([a-z-]+):/.exec(l)![1]);
    expect(names).toEqual([
      'reject-all',
      'scope-prefix',
      'include-regex',
      'max-hops',
      'transclusion',
      'exclude-regex',
      'path-repeats',
      'path-depth',
      'url-length',
      'prerequisite',
      'scheme',
      'logout-guard',
    ]);
  });

  it('traces every rule, and the last non-PASS answer wins', () => {
    const d = judge('https://example.com/docs/a.html');
    expect(d.trace.length).toBe(12);
    expect(d.trace[0]).toMatchObject({ rule: 'reject-all', result: 'REJECT' });
    expect(d.trace[1]).toMatchObject({ rule: 'scope-prefix', result: 'ACCEPT' });
    expect(d.trace.slice(2).every((t) => t.result === 'PASS')).toBe(true);
    expect(d).toMatchObject({ decision: 'ACCEPT', rule: 'scope-prefix' });
    expect(d.reason).toBe('ACCEPT by scope-prefix: under http://(com,example,)/docs/ (seed https://example.com/docs/) (rule 2)');
  });
});

describe('reject-all', () => {
  it('rejects what nothing accepts, naming the scope that did not take it (never reject-all)', () => {
    const d = judge('https://other.example.org/');
    expect(d.decision).toBe('REJECT');
    expect(d.rule).toBe('other-host');
    expect(d.reason).toBe('REJECT: other host other.example.org (prefix scope of seed https://example.com/docs/)');
    // The full trace still shows reject-all standing, for --explain.
    expect(d.trace[0]).toMatchObject({ rule: 'reject-all', result: 'REJECT' });
    expect(formatDecision(d).find((l) => l.startsWith(">"))).toMatch(/^>\s+1\. reject-all/);
  });

  it('says "not under" the seed prefix for the same host', () => {
    const d = judge('https://example.com/blog/post');
    expect(d.rule).toBe('outside-prefix');
    expect(d.reason).toBe('REJECT: not under https://example.com/docs/ (prefix scope of seed https://example.com/docs/)');
  });

  it('names the host, domain and page scopes', () => {
    const host = judge('http://localhost:8080/x', 'L', { scope: 'host' }, ['http://127.0.0.1:8080/a/b.html']);
    expect(host).toMatchObject({ rule: 'other-host', reason: 'REJECT: other host localhost:8080 (host scope of seed http://127.0.0.1:8080/a/b.html)' });
    const domain = judge('https://www.example.net/', 'L', { scope: 'domain' }, ['https://www.example.com/', 'https://docs.example.org/']);
    expect(domain).toMatchObject({ rule: 'other-domain', reason: 'REJECT: other domain example.net (domain scope of seeds https://www.example.com/, https://docs.example.org/)' });
    const page = judge('https://example.com/docs/other', 'L', { scope: 'page' });
    expect(page).toMatchObject({ rule: 'not-a-seed-page', reason: 'REJECT: not one of the seed pages (page scope of seed https://example.com/docs/)' });
  });

  it('names trans-hops for an off-scope embed too many hops from its page', () => {
    const d = judge('https://cdn.example.net/deep.png', 'LEEE');
    expect(d.rule).toBe('trans-hops');
    expect(d.reason).toBe('REJECT: an embed or redirect 3 hops (EEE) after its page > trans-hops 2, and other host cdn.example.net (prefix scope of seed https://example.com/docs/)');
  });
});

describe('include-regex', () => {
  it('accepts outside the seed scope', () => {
    const d = judge('https://example.com/blog/post', 'L', { include: ['/blog/'] });
    expect(d).toMatchObject({ decision: 'ACCEPT', rule: 'include-regex' });
    expect(d.reason).toBe('ACCEPT by include-regex: matched /\\/blog\\// (rule 3)');
  });

  it('loses to an exclude (exclusions always win)', () => {
    const d = judge('https://example.com/blog/private/x', 'L', { include: ['/blog/'], exclude: ['/private/'] });
    expect(d).toMatchObject({ decision: 'REJECT', rule: 'exclude-regex' });
  });

  it('is still bounded by max-hops', () => {
    expect(judge('https://example.com/blog/x', 'LLL', { include: ['/blog/'], maxHops: 2 }).rule).toBe('max-hops');
  });
});

describe('max-hops', () => {
  it('rejects beyond maxHops, counting every hop', () => {
    expect(judge('https://example.com/docs/a', 'LL', { maxHops: 2 }).decision).toBe('ACCEPT');
    const d = judge('https://example.com/docs/a', 'LLL', { maxHops: 2 });
    expect(d.reason).toBe('REJECT by max-hops: too many hops: 3 (LLL) > max-hops 2 (rule 4)');
    expect(judge('https://example.com/docs/a', 'LRL', { maxHops: 2 }).rule).toBe('max-hops');
  });

  it('abbreviates long hop paths in the reason', () => {
    expect(judge('https://example.com/docs/a', 'L'.repeat(25)).reason).toContain('too many hops: 25 (LLLL…LLLLLL) > max-hops 20');
  });

  it('is overridden by transclusion for the embeds of a page at the limit (as in Heritrix)', () => {
    const d = judge('https://cdn.example.net/img.png', 'LLE', { maxHops: 2 });
    expect(d.trace.find((t) => t.rule === 'max-hops')!.result).toBe('REJECT');
    expect(d).toMatchObject({ decision: 'ACCEPT', rule: 'transclusion' });
  });
});

describe('transclusion', () => {
  const offsite = 'https://cdn.example.net/asset';
  it.each([
    ['E', true],
    ['LE', true],
    ['LR', true],
    ['LER', true],
    ['LEEE', false],
    ['LX', true],
    ['LXX', false],
    ['LEX', true],
    ['LP', true],
    ['LI', true],
    ['LS', true],
    ['L', false],
    ['LEL', false],
    ['LEM', false],
  ])('hops %s → accepted: %s', (hops, accepted) => {
    const d = judge(offsite, hops);
    expect(d.trace.find((t) => t.rule === 'transclusion')!.result).toBe(accepted || hops.endsWith('P') ? 'ACCEPT' : 'PASS');
    expect(d.decision).toBe(accepted ? 'ACCEPT' : 'REJECT');
  });

  it('explains a pass', () => {
    const t = (hops: string, over: Partial<ScopeSettings> = {}) => judge(offsite, hops, over).trace.find((x) => x.rule === 'transclusion')!.reason;
    expect(t('LEEE')).toBe('3 non-link hops at the end (EEE) > transHops 2');
    expect(t('LXX')).toBe('2 speculative hops (X) at the end > 1');
    expect(t('LL')).toBe('last hop is a link (L)');
    expect(t('')).toBe('no hops');
    expect(t('LE', { transHops: 0 })).toBe('1 non-link hops at the end (E) > transHops 0');
  });

  it('explains an accept', () => {
    expect(judge(offsite, 'LLE').reason).toBe('ACCEPT by transclusion: hops path LLE ends in 1 non-link hop (E) ≤ transHops 2 (rule 5)');
  });
});

describe('exclude-regex', () => {
  it('rejects what the scope accepted, with the matching pattern in the reason', () => {
    const d = judge('https://example.com/docs/calendar/2024', 'L', { exclude: ['\\?print=', '/calendar/'] });
    expect(d.reason).toBe('REJECT by exclude-regex: matched /\\/calendar\\// (rule 6)');
  });

  it('rejects embeds too', () => {
    expect(judge('https://cdn.example.net/ads/banner.gif', 'LE', { exclude: ['/ads/'] }).rule).toBe('exclude-regex');
  });

  it('matches the URL as fetched (no fragment)', () => {
    expect(judge('https://example.com/docs/a#calendar', 'L', { exclude: ['#calendar'] }).decision).toBe('ACCEPT');
  });
});

describe('path-repeats', () => {
  it('allows maxPathRepeats in a row and rejects one more', () => {
    expect(judge('https://example.com/docs/a/a/b', 'L').decision).toBe('ACCEPT');
    const d = judge('https://example.com/docs/a/a/a/b', 'L');
    expect(d.reason).toBe('REJECT by path-repeats: segment "a" repeated 3 times in a row > maxPathRepeats 2 (rule 7)');
    expect(judge('https://example.com/docs/a/b/a/b/a/b', 'L').decision).toBe('ACCEPT');
    expect(judge('https://example.com/docs/x/x', 'L', { maxPathRepeats: 1 }).rule).toBe('path-repeats');
  });
});

describe('path-depth', () => {
  it('rejects more than maxPathDepth segments', () => {
    expect(judge('https://example.com/docs/1/2/3', 'L', { maxPathDepth: 4 }).decision).toBe('ACCEPT');
    expect(judge('https://example.com/docs/1/2/3/', 'L', { maxPathDepth: 4 }).reason).toBe(
      'REJECT by path-depth: 5 path segments > maxPathDepth 4 (rule 8)',
    );
  });
});

describe('url-length', () => {
  it('rejects URLs over maxUrlLength (default 2083)', () => {
    const base = 'https://example.com/docs/?q=';
    expect(judge(base + 'x'.repeat(2083 - base.length)).decision).toBe('ACCEPT');
    const d = judge(base + 'x'.repeat(2084 - base.length));
    expect(d.reason).toBe('REJECT by url-length: 2084 characters > maxUrlLength 2083 (rule 9)');
  });
});

describe('prerequisite', () => {
  it('accepts robots.txt off-site and even when excluded', () => {
    const d = judge('https://cdn.example.net/robots.txt', 'LEP', { exclude: ['robots'] });
    expect(d).toMatchObject({ decision: 'ACCEPT', rule: 'prerequisite' });
    expect(d.reason).toBe('ACCEPT by prerequisite: a prerequisite (hops path ends in P) (rule 10)');
  });
});

describe('scheme', () => {
  it('rejects other schemes and unparsable URLs, without throwing', () => {
    expect(judge('mailto:someone@example.com').reason).toBe('REJECT by scheme: scheme mailto is not http or https (rule 11)');
    expect(judge('ftp://example.com/docs/file', 'LP').rule).toBe('scheme');
    const bad = judge('http://[::1');
    expect(bad.reason).toBe('REJECT by scheme: not a valid URL (rule 11)');
  });
});

describe('seeds', () => {
  it('accepts a candidate flagged as a seed', () => {
    const d = buildScope(settings(), [SEED]).decide({ url: 'https://elsewhere.example.org/', hopsPath: 'LL', seed: true });
    expect(d).toMatchObject({ decision: 'ACCEPT', rule: 'scope-prefix' });
    expect(d.reason).toContain('a seed');
  });

  it('addSeed makes a redirected seed a seed: its prefix comes into scope', () => {
    const scope = buildScope(settings(), ['http://example.com/']);
    const moved = { url: 'https://www.example.org/home/page', hopsPath: 'RL' };
    expect(scope.decide(moved).decision).toBe('REJECT');
    scope.addSeed('https://www.example.org/home/');
    expect(scope.decide(moved).decision).toBe('ACCEPT');
    expect(scope.describe()[1]).toContain('http://(org,example,www,)/home/');
  });
});

describe('bad input gives typed errors', () => {
  it('rejects bad settings', () => {
    expect(codeOf(() => buildScope(settings({ scope: 'site' as never }), [SEED]))).toBe('SCOPE_BAD_SETTING');
    expect(codeOf(() => buildScope(settings({ maxHops: -1 }), [SEED]))).toBe('SCOPE_BAD_SETTING');
    expect(codeOf(() => buildScope(settings({ transHops: 1.5 }), [SEED]))).toBe('SCOPE_BAD_SETTING');
    expect(codeOf(() => buildScope(settings({ include: 'x' as never }), [SEED]))).toBe('SCOPE_BAD_SETTING');
    expect(codeOf(() => buildScope(null as never, [SEED]))).toBe('SCOPE_BAD_SETTING');
  });

  it('rejects a regex that does not compile, naming it', () => {
    try {
      buildScope(settings({ exclude: ['ok', '(unclosed'] }), [SEED]);
      expect.unreachable();
    } catch (e) {
      expect(isTroveError(e, 'SCOPE_BAD_REGEX')).toBe(true);
      expect((e as Error).message).toContain('(unclosed');
    }
    expect(codeOf(() => buildScope(settings({ include: [''] }), [SEED]))).toBe('SCOPE_BAD_REGEX');
  });

  it('rejects bad seeds', () => {
    expect(codeOf(() => buildScope(settings(), ['not a url']))).toBe('URL_INVALID');
    expect(codeOf(() => buildScope(settings(), ['mailto:x@example.com']))).toBe('URL_UNSUPPORTED_SCHEME');
    expect(codeOf(() => buildScope(settings(), [SEED]).addSeed('::'))).toBe('URL_INVALID');
  });

  it('rejects a bad hops path or candidate in decide', () => {
    const scope = buildScope(settings(), [SEED]);
    expect(codeOf(() => scope.decide({ url: SEED, hopsPath: 'LQ' }))).toBe('SCOPE_BAD_HOPS_PATH');
    expect(codeOf(() => scope.decide({ url: 42 as never, hopsPath: '' }))).toBe('SCOPE_BAD_CANDIDATE');
  });
});

describe('formatDecision', () => {
  it('puts the decision first, then the deciding rule and why, then the marked trace', () => {
    const lines = formatDecision(judge('https://example.com/docs/calendar/x', 'L', { exclude: ['/calendar/'] }));
    expect(lines[0]).toBe('REJECT');
    expect(lines[1]).toBe('REJECT by exclude-regex: matched /\\/calendar\\// (rule 6)');
    expect(lines[2]).toBe('trace:');
    expect(lines.length).toBe(3 + 12);
    expect(lines[3]).toMatch(/^ {3}1\. reject-all +REJECT  nothing has accepted this URL yet$/);
    expect(lines.filter((l) => l.startsWith('>'))).toEqual([expect.stringMatching(/^> {2}6\. exclude-regex +REJECT  matched/)]);
  });
});
