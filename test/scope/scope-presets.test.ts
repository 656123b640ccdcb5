import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../core/api/settings.ts';
import { buildScope, scopeSettingsFrom, seedSurtPrefix } from '../../core/scope/decide-rules.ts';
import type { ScopePreset } from '../../core/api/settings.ts';

function scopeFor(preset: ScopePreset, seeds: string[]) {
  return buildScope({ ...scopeSettingsFrom(defaultSettings()), scope: preset }, seeds);
}

/** Whether `url`, found by a link from a seed page, is in scope. */
function inScope(preset: ScopePreset, seeds: string[], url: string, hopsPath = 'L'): boolean {
  return scopeFor(preset, seeds).decide({ url, hopsPath }).decision === 'ACCEPT';
}

describe('seedSurtPrefix', () => {
  it.each([
    ['prefix', 'http://www.archive.org/a/b.html', 'http://(org,archive,www,)/a/'],
    ['prefix', 'https://example.com/docs/', 'http://(com,example,)/docs/'],
    ['prefix', 'https://example.com', 'http://(com,example,)/'],
    ['prefix', 'http://127.0.0.1:8080/x/y', 'http://(127.0.0.1:8080)/x/'],
    ['host', 'https://www.example.com/docs/a.html', 'http://(com,example,www,)/'],
    ['host', 'http://example.com:8080/a', 'http://(com,example,:8080)/'],
    ['domain', 'https://news.bbc.co.uk/a', 'http://(uk,co,bbc,'],
    ['domain', 'https://alice.github.io/blog/', 'http://(io,github,alice,'],
    ['domain', 'http://127.0.0.1:9000/', 'http://(127.0.0.1:9000)/'],
    ['domain', 'http://localhost/', 'http://(localhost,)/'],
    ['page', 'https://example.com/a', null],
    ['any', 'https://example.com/a', null],
  ] as const)('%s %s → %s', (preset, seed, prefix) => {
    expect(seedSurtPrefix(preset, seed)).toBe(prefix);
  });
});

describe('page', () => {
  const seeds = ['https://example.com/news/today.html?id=1'];
  it('accepts exactly the seed page (canonically equal forms too)', () => {
    expect(inScope('page', seeds, 'https://example.com/news/today.html?id=1', '')).toBe(true);
    expect(inScope('page', seeds, 'https://www.example.com/news/today.html?id=1#top', 'R')).toBe(true);
  });
  it('rejects its links but takes its embeds through transclusion', () => {
    expect(inScope('page', seeds, 'https://example.com/news/yesterday.html')).toBe(false);
    expect(inScope('page', seeds, 'https://example.com/news/today.html?id=2')).toBe(false);
    expect(inScope('page', seeds, 'https://static.example.net/style.css', 'E')).toBe(true);
  });
  it('explains itself', () => {
    const d = scopeFor('page', seeds).decide({ url: seeds[0]!, hopsPath: '' });
    expect(d.reason).toBe('ACCEPT by scope-page: the seed page https://example.com/news/today.html?id=1 (rule 2)');
  });
});

describe('prefix (the default)', () => {
  const seeds = ['https://example.com/docs/intro.html'];
  it('accepts the seed directory on http and https', () => {
    expect(inScope('prefix', seeds, 'https://example.com/docs/guide/setup.html')).toBe(true);
    expect(inScope('prefix', seeds, 'http://example.com/docs/')).toBe(true);
  });
  it('rejects the rest of the host, other hosts and ports', () => {
    expect(inScope('prefix', seeds, 'https://example.com/doc')).toBe(false);
    expect(inScope('prefix', seeds, 'https://example.com/about')).toBe(false);
    expect(inScope('prefix', seeds, 'https://www.example.com/docs/a')).toBe(false);
    expect(inScope('prefix', seeds, 'https://example.com:8443/docs/a')).toBe(false);
  });
  it('works on a loopback test server with a port', () => {
    expect(inScope('prefix', ['http://127.0.0.1:43211/site/'], 'http://127.0.0.1:43211/site/a')).toBe(true);
    expect(inScope('prefix', ['http://127.0.0.1:43211/site/'], 'http://127.0.0.1:43212/site/a')).toBe(false);
  });
});

describe('host', () => {
  const seeds = ['https://www.example.com/docs/intro.html'];
  it('accepts any path on the seed host', () => {
    expect(inScope('host', seeds, 'https://www.example.com/')).toBe(true);
    expect(inScope('host', seeds, 'http://www.example.com/shop/cart')).toBe(true);
  });
  it('rejects subdomains, the parent domain and look-alikes', () => {
    expect(inScope('host', seeds, 'https://blog.www.example.com/')).toBe(false);
    expect(inScope('host', seeds, 'https://example.com/')).toBe(false);
    expect(inScope('host', seeds, 'https://www.example.com.evil.net/')).toBe(false);
  });
});

describe('domain', () => {
  it('accepts the registrable domain and all its subdomains, any port', () => {
    const seeds = ['https://www.example.co.uk/'];
    for (const url of ['https://example.co.uk/a', 'https://shop.example.co.uk/a', 'http://a.b.example.co.uk:8080/']) {
      expect(inScope('domain', seeds, url)).toBe(true);
    }
    for (const url of ['https://other.co.uk/', 'https://example.com/', 'https://notexample.co.uk/', 'https://example.co.uk.evil.net/']) {
      expect(inScope('domain', seeds, url)).toBe(false);
    }
  });
  it('stops at private suffixes: one github.io site is not all of github.io', () => {
    const seeds = ['https://alice.github.io/'];
    expect(inScope('domain', seeds, 'https://docs.alice.github.io/x')).toBe(true);
    expect(inScope('domain', seeds, 'https://bob.github.io/')).toBe(false);
  });
  it('falls back to the host for IP addresses', () => {
    expect(inScope('domain', ['http://10.1.2.3/'], 'http://10.1.2.3/a')).toBe(true);
    expect(inScope('domain', ['http://10.1.2.3/'], 'http://10.1.2.30/a')).toBe(false);
  });
  it('explains itself with the SURT prefix and the seed', () => {
    const d = scopeFor('domain', ['https://www.example.org/']).decide({ url: 'https://cdn.example.org/a.js', hopsPath: 'L' });
    expect(d.reason).toBe('ACCEPT by scope-domain: under http://(org,example, (seed https://www.example.org/) (rule 2)');
  });
});

describe('any', () => {
  it('accepts every http/https URL; the other rules still apply', () => {
    expect(inScope('any', ['https://example.com/'], 'https://anything.example.net/x')).toBe(true);
    expect(inScope('any', ['https://example.com/'], 'mailto:x@example.com')).toBe(false);
    expect(inScope('any', ['https://example.com/'], 'https://anything.example.net/x', 'L'.repeat(21))).toBe(false);
  });
});

describe('many seeds', () => {
  it('keeps every seed prefix and decides quickly with 5000 seeds', () => {
    const seeds = Array.from({ length: 5000 }, (_, i) => `https://site${i}.example.net/section${i % 7}/`);
    const scope = scopeFor('prefix', seeds);
    expect(scope.describe()[1]).toContain('and 4997 more');
    // No timing bound: a blow-up would not finish within the test's timeout; speed belongs to benchmarks.
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      if (scope.decide({ url: `https://site${i}.example.net/section${i % 7}/page${i}`, hopsPath: 'L' }).decision === 'ACCEPT') accepted++;
      scope.decide({ url: `https://site${i}.example.net/other/page${i}`, hopsPath: 'L' });
    }
    expect(accepted).toBe(5000);
  });
});
