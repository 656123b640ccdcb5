import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../core/api/settings.ts';
import { isTroveError } from '../../core/errors.ts';
import { buildScope, decideAfterFetch, FILE_TYPE_PRESETS, scopeSettingsFrom } from '../../core/scope/decide-rules.ts';
import type { ExtraRuleConfig, ScopeSettings } from '../../core/scope/decide-rules.ts';

const SEED = 'https://example.com/';

function scopeWith(rules: ExtraRuleConfig[], over: Partial<ScopeSettings> = {}) {
  return buildScope({ ...scopeSettingsFrom(defaultSettings()), scope: 'host', rules, ...over }, [SEED]);
}

function judge(rules: ExtraRuleConfig[], url: string, hopsPath = 'L', over: Partial<ScopeSettings> = {}) {
  return scopeWith(rules, over).decide({ url, hopsPath });
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

describe('where extra rules go', () => {
  it('puts ACCEPT rules with the scope rules and REJECT rules after the excludes', () => {
    const lines = scopeWith(
      [
        { type: 'file-type', presets: ['video'], decision: 'REJECT' },
        { type: 'on-domain', domains: ['partner.org'], decision: 'ACCEPT' },
        { type: 'mime', pattern: '^video/', decision: 'REJECT' },
      ],
      { exclude: ['/private/'] },
    ).describe();
    const names = lines.map((l) => /^\d+\. ([a-z-]+)/.exec(l)![1]);
    expect(names).toEqual([
      'reject-all',
      'scope-host',
      'include-regex',
      'on-domain',
      'max-hops',
      'transclusion',
      'exclude-regex',
      'file-type',
      'path-repeats',
      'path-depth',
      'url-length',
      'prerequisite',
      'scheme',
      'logout-guard',
      'mime',
    ]);
    expect(lines[14]).toBe('15. mime (after fetch): REJECT responses whose MIME type matches /^video\\//');
  });
});

describe('on-host', () => {
  const rule: ExtraRuleConfig = { type: 'on-host', hosts: ['CDN.Example.net', 'bücher.example'], decision: 'ACCEPT' };
  it('accepts listed hosts exactly, any port, IDN included', () => {
    expect(judge([rule], 'https://cdn.example.net:8443/x').reason).toBe('ACCEPT by on-host: host cdn.example.net is listed (rule 4)');
    expect(judge([rule], 'https://xn--bcher-kva.example/').decision).toBe('ACCEPT');
    expect(judge([rule], 'https://img.cdn.example.net/x').decision).toBe('REJECT');
  });
  it('loses to an exclude and to the hop limit', () => {
    expect(judge([rule], 'https://cdn.example.net/private/x', 'L', { exclude: ['/private/'] }).rule).toBe('exclude-regex');
    expect(judge([rule], 'https://cdn.example.net/x', 'LLL', { maxHops: 2 }).rule).toBe('max-hops');
  });
  it('can reject a host the scope accepted', () => {
    expect(judge([{ type: 'on-host', hosts: ['example.com'], decision: 'REJECT' }], 'https://example.com/a').rule).toBe('on-host');
  });
});

describe('on-domain', () => {
  it('matches the domain and its subdomains, not look-alikes', () => {
    const rules: ExtraRuleConfig[] = [{ type: 'on-domain', domains: ['.partner.org'], decision: 'ACCEPT' }];
    expect(judge(rules, 'https://partner.org/').decision).toBe('ACCEPT');
    expect(judge(rules, 'https://a.b.partner.org/').reason).toBe('ACCEPT by on-domain: host a.b.partner.org is in domain partner.org (rule 4)');
    expect(judge(rules, 'https://notpartner.org/').decision).toBe('REJECT');
  });
});

describe('regex', () => {
  it('accepts or rejects URLs matching a pattern', () => {
    expect(judge([{ type: 'regex', pattern: '^https://other\\.org/keep/', decision: 'ACCEPT' }], 'https://other.org/keep/a').decision).toBe('ACCEPT');
    expect(judge([{ type: 'regex', pattern: '\\?sort=', decision: 'REJECT' }], 'https://example.com/list?sort=asc').reason).toBe(
      'REJECT by regex: matched /\\?sort=/ (rule 7)',
    );
  });
});

describe('hops-path', () => {
  it('matches the hops path', () => {
    const rules: ExtraRuleConfig[] = [{ type: 'hops-path', pattern: 'X', decision: 'REJECT' }];
    expect(judge(rules, 'https://example.com/from-script.js', 'LX').reason).toBe('REJECT by hops-path: hops path "LX" matched /X/ (rule 7)');
    expect(judge(rules, 'https://example.com/page', 'LL').decision).toBe('ACCEPT');
  });
});

describe('file-type', () => {
  it('has the four presets', () => {
    expect(Object.keys(FILE_TYPE_PRESETS).sort()).toEqual(['audio', 'documents', 'images', 'video']);
  });

  it.each([
    ['images', 'https://example.com/a/photo.JPG'],
    ['audio', 'https://example.com/talk.mp3'],
    ['video', 'https://example.com/clip.webm'],
    ['documents', 'https://example.com/report.pdf'],
  ] as const)('%s rejects %s, even as an embed', (preset, url) => {
    const rules: ExtraRuleConfig[] = [{ type: 'file-type', presets: [preset], decision: 'REJECT' }];
    expect(judge(rules, url, 'L').rule).toBe('file-type');
    expect(judge(rules, url, 'LE').rule).toBe('file-type');
    expect(judge(rules, 'https://example.com/page.html', 'L').decision).toBe('ACCEPT');
  });

  it('takes extra extensions and ignores the query', () => {
    const rules: ExtraRuleConfig[] = [{ type: 'file-type', extensions: ['.ISO', 'dmg'], decision: 'REJECT' }];
    expect(judge(rules, 'https://example.com/dl/disk.iso?mirror=1').reason).toBe('REJECT by file-type: extension .iso (rule 7)');
    expect(judge(rules, 'https://example.com/dl/').decision).toBe('ACCEPT');
  });

  it('can accept documents linked off-site', () => {
    const rules: ExtraRuleConfig[] = [{ type: 'file-type', presets: ['documents'], decision: 'ACCEPT' }];
    expect(judge(rules, 'https://elsewhere.org/paper.pdf').decision).toBe('ACCEPT');
  });
});

describe('prerequisites still win over REJECT extras', () => {
  it('fetches robots.txt even when its host is rejected', () => {
    const rules: ExtraRuleConfig[] = [{ type: 'on-host', hosts: ['example.com'], decision: 'REJECT' }];
    expect(judge(rules, 'https://example.com/robots.txt', 'LP').rule).toBe('prerequisite');
  });
});

describe('decideAfterFetch', () => {
  const rules: ExtraRuleConfig[] = [
    { type: 'on-host', hosts: ['x.org'], decision: 'ACCEPT' },
    { type: 'mime', pattern: '^video/', decision: 'REJECT' },
    { type: 'content-length', over: 1_000_000, decision: 'REJECT' },
    { type: 'content-length', under: 100, decision: 'REJECT' },
  ];

  it('returns null when no after-fetch rule has an opinion', () => {
    expect(decideAfterFetch(rules, { mime: 'text/html', contentLength: 5000 })).toBeNull();
    expect(decideAfterFetch([], { mime: 'video/mp4', contentLength: 5 })).toBeNull();
    expect(decideAfterFetch(rules, {})).toBeNull();
  });

  it('rejects by MIME type and by length, explaining which', () => {
    const d = decideAfterFetch(rules, { mime: 'video/mp4', contentLength: 5000 })!;
    expect(d).toMatchObject({ decision: 'REJECT', rule: 'mime' });
    expect(d.reason).toBe('REJECT by mime: video/mp4 matched /^video\\// (after-fetch rule 1)');
    expect(d.trace.map((t) => t.result)).toEqual(['REJECT', 'PASS', 'PASS']);
    expect(decideAfterFetch(rules, { mime: 'text/html', contentLength: 2_000_000 })!.reason).toBe(
      'REJECT by content-length: 2000000 bytes > 1000000 (after-fetch rule 2)',
    );
    expect(decideAfterFetch(rules, { mime: 'text/html', contentLength: 10 })!.rule).toBe('content-length');
  });

  it('lets the last non-PASS answer win', () => {
    const d = decideAfterFetch(
      [
        { type: 'mime', pattern: '^image/', decision: 'REJECT' },
        { type: 'mime', pattern: '^image/svg', decision: 'ACCEPT' },
      ],
      { mime: 'image/svg+xml', contentLength: 10 },
    )!;
    expect(d.decision).toBe('ACCEPT');
  });
});

describe('bad rule configs give typed errors at build time', () => {
  it.each([
    [{ type: 'on-host', hosts: [], decision: 'ACCEPT' }, 'SCOPE_BAD_RULE'],
    [{ type: 'on-host', hosts: ['a.org'], decision: 'MAYBE' }, 'SCOPE_BAD_RULE'],
    [{ type: 'on-domain', domains: 'a.org', decision: 'ACCEPT' }, 'SCOPE_BAD_RULE'],
    [{ type: 'regex', pattern: '[', decision: 'ACCEPT' }, 'SCOPE_BAD_REGEX'],
    [{ type: 'hops-path', pattern: '(', decision: 'REJECT' }, 'SCOPE_BAD_REGEX'],
    [{ type: 'file-type', presets: ['fonts'], decision: 'REJECT' }, 'SCOPE_BAD_RULE'],
    [{ type: 'file-type', decision: 'REJECT' }, 'SCOPE_BAD_RULE'],
    [{ type: 'mime', pattern: '*', decision: 'REJECT' }, 'SCOPE_BAD_REGEX'],
    [{ type: 'content-length', decision: 'REJECT' }, 'SCOPE_BAD_RULE'],
    [{ type: 'content-length', over: -1, decision: 'REJECT' }, 'SCOPE_BAD_RULE'],
    [{ type: 'teleport', decision: 'ACCEPT' }, 'SCOPE_BAD_RULE'],
  ])('%j → %s', (config, code) => {
    expect(codeOf(() => scopeWith([config as ExtraRuleConfig]))).toBe(code);
  });

  it('rejects a rules field that is not a list', () => {
    expect(codeOf(() => scopeWith({} as never))).toBe('SCOPE_BAD_SETTING');
  });
});
