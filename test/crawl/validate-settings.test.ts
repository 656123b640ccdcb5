// settingsProblems lists every problem, each tagged with its setting key and in plain words;
// nothing is clamped. Every number setting is tried with -1, 0, a fraction, text and a huge value.
import { describe, expect, it } from 'vitest';
import { defaultSettings, type CrawlSettings } from '../../core/api/settings.ts';
import { formatProblems, NUMBER_RULES, settingsProblems, validateSettings } from '../../core/crawl/validate-settings.ts';
import { checkCrawl } from '../../core/app/crawl-checks.ts';
import { isTroveError } from '../../core/errors.ts';

const base = (): CrawlSettings => ({ ...defaultSettings(), seeds: ['http://example.org/'] });
const problemsWith = (patch: Record<string, unknown>) => settingsProblems({ ...base(), ...patch } as CrawlSettings, { requireSeeds: true });

describe('settingsProblems', () => {
  it('defaults with a seed have no problem', () => {
    expect(problemsWith({})).toEqual([]);
  });

  it('the issue #16 form: every bad value reported, each on its own key', () => {
    const problems = problemsWith({
      limitPages: -5,
      minDelayMs: -100,
      maxDelayMs: -50,
      perHost: -4,
      overrides: [{ host: 'not a host!!', minDelayMs: -500 }],
      include: ['(', 'ok', '[z-a]'],
      exclude: ['*bad'],
    });
    const keys = problems.map((p) => p.key);
    expect(keys).toEqual(expect.arrayContaining(['limitPages', 'minDelayMs', 'maxDelayMs', 'perHost', 'overrides[0].host', 'overrides[0].minDelayMs', 'include', 'exclude']));
    expect(problems.filter((p) => p.key === 'include')).toHaveLength(2);
    expect(problems.find((p) => p.key === 'include')!.message).toBe('line 1: /(/ is not a valid regular expression (unterminated group)');
    expect(problems.filter((p) => p.key === 'include')[1]!.message).toMatch(/^line 3: /);
    expect(problems.find((p) => p.key === 'limitPages')!.message).toBe('must be 0 or more (0 means no limit), not -5');
    expect(problems.find((p) => p.key === 'perHost')!.message).toBe('must be 1 or more, not -4');
    expect(problems.find((p) => p.key === 'overrides[0].host')!.message).toBe('"not a host!!" is not a host name');
    // No flag names in the words.
    for (const p of problems) expect(p.message).not.toMatch(/--[a-z]/);
  });

  const NUMBER_KEYS = Object.keys(NUMBER_RULES) as (keyof CrawlSettings)[];
  it.each(NUMBER_KEYS)('%s: -1, 0, 2.5, text and 1e30 are each accepted as they are or reported', (key) => {
    const rule = NUMBER_RULES[key]!;
    // The two delays are also checked against each other: keep the other one out of the way.
    const other = key === 'minDelayMs' ? { maxDelayMs: NUMBER_RULES.maxDelayMs!.max } : key === 'maxDelayMs' ? { minDelayMs: 0 } : {};
    const only = (v: unknown) => problemsWith({ [key]: v, ...other }).filter((p) => p.key === key);
    expect(only(-1)).toEqual([{ key, message: expect.stringMatching(/^must be [\d.]+ or more/) }]);
    if (rule.min > 0) expect(only(0)).toEqual([{ key, message: `must be ${rule.min} or more, not 0` }]);
    else expect(only(0)).toEqual([]);
    if (rule.whole) expect(only(2.5)).toEqual([{ key, message: 'must be a whole number, not 2.5' }]);
    else expect(only(2.5)).toEqual([]);
    expect(only('abc')).toEqual([{ key, message: 'must be a number, not "abc"' }]);
    expect(only('')).toEqual([{ key, message: 'must be a number, not empty' }]);
    expect(only(1e30)).toEqual([{ key, message: expect.stringMatching(/^must be at most [\d,]+, not 1,000,000,000,000,000,000,000,000,000,000$/) }]);
    expect(only(rule.max)).toEqual([]);
  });

  it('a minimum delay above the maximum is reported, not reordered', () => {
    expect(problemsWith({ minDelayMs: 5000, maxDelayMs: 1000 })).toEqual([{ key: 'maxDelayMs', message: 'the maximum delay (1000 ms) is below the minimum (5000 ms)' }]);
  });

  it('overrides: host and domain checked, numbers as at the top level', () => {
    const problems = problemsWith({
      overrides: [{ host: 'example.org', perHost: 0 }, { domain: '.example.net', delayFactor: -1 }, { minDelayMs: 5 }, { host: 'b.example', perHost: 2 }],
    });
    expect(problems).toEqual([
      { key: 'overrides[0].perHost', message: 'must be 1 or more, not 0' },
      { key: 'overrides[1].delayFactor', message: 'must be 0 or more, not -1' },
      { key: 'overrides[2].host', message: 'give the host (or domain) this override applies to' },
    ]);
  });

  it('seeds, choices and text fields: all reported at once', () => {
    const problems = settingsProblems(
      { ...base(), seeds: ['ftp://x', 'http://ok.example/'], scope: 'galaxy', robots: 'never', warcPrefix: 'a b', userAgent: '' } as unknown as CrawlSettings,
      { requireSeeds: true },
    );
    expect(problems.map((p) => p.key)).toEqual(['seeds', 'scope', 'robots', 'userAgent', 'warcPrefix']);
  });

  it('validateSettings throws once with every problem; the text names keys a caller can map to its flags', () => {
    let err: unknown;
    try {
      validateSettings({ ...base(), limitPages: -5, concurrency: 0 }, { requireSeeds: true });
    } catch (e) {
      err = e;
    }
    expect(isTroveError(err, 'SETTINGS_INVALID')).toBe(true);
    const e = err as { message: string; details: { problems: unknown[] } };
    expect(e.details.problems).toHaveLength(2);
    expect(e.message).toBe('2 settings problems:\nconcurrency: must be 1 or more, not 0\nlimitPages: must be 0 or more (0 means no limit), not -5');
    const flags: Record<string, string> = { limitPages: '--limit-pages', concurrency: '--concurrency' };
    expect(formatProblems(e.details.problems as never, (k) => flags[k]!)).toBe('--concurrency: must be 1 or more, not 0\n--limit-pages: must be 0 or more (0 means no limit), not -5');
  });
});

describe('checkCrawl (the app form) uses the same problems, tagged by field', () => {
  it('each issue carries its setting key; nothing is matched from message text', () => {
    const check = checkCrawl({ seedsText: 'http://example.org/\nnot a url at all', settings: { limitPages: -5, perHost: -4, exclude: ['(', ')'] } });
    expect(check.valid).toBe(false);
    expect(check.issues.map((i) => i.field)).toEqual(['seeds', 'perHost', 'limitPages', 'exclude', 'exclude']);
  });
});
