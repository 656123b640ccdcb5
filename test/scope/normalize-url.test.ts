import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isTroveError } from '../../core/errors.ts';
import { normalizeUrl } from '../../core/scope/normalize-url.ts';
import { corpusPath } from '../helpers/corpus.ts';

interface WptCase {
  input: string;
  base: string | null;
  href?: string;
  protocol?: string;
  failure?: boolean;
}

const wpt = (JSON.parse(fs.readFileSync(corpusPath('wpt-url', 'urltestdata.json'), 'utf8')) as unknown[]).filter(
  (t): t is WptCase => typeof t === 'object' && t !== null,
);

function errorCode(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    if (isTroveError(e)) return e.code;
    throw e; // an untyped crash fails the test
  }
}

describe('normalizeUrl against WPT urltestdata.json (every entry)', () => {
  it('has the whole file', () => {
    expect(wpt.length).toBe(891);
  });

  const fetchable = wpt.filter((t) => !t.failure && (t.protocol === 'http:' || t.protocol === 'https:'));
  const otherScheme = wpt.filter((t) => !t.failure && t.protocol !== 'http:' && t.protocol !== 'https:');
  const failures = wpt.filter((t) => t.failure);

  it(`gives WPT's href minus the fragment for the ${fetchable.length} http/https cases`, () => {
    const wrong = fetchable.filter((t) => {
      const want = t.href!.replace(/#.*$/s, '');
      return normalizeUrl(t.input, t.base ?? undefined) !== want;
    });
    expect(wrong.map((t) => t.input)).toEqual([]);
  });

  it(`throws URL_UNSUPPORTED_SCHEME for the ${otherScheme.length} valid non-http cases`, () => {
    const wrong = otherScheme.filter((t) => errorCode(() => normalizeUrl(t.input, t.base ?? undefined)) !== 'URL_UNSUPPORTED_SCHEME');
    expect(wrong.map((t) => `${t.input} (${t.protocol})`)).toEqual([]);
  });

  it(`throws URL_INVALID for the ${failures.length} cases WPT says must fail`, () => {
    const wrong = failures.filter((t) => errorCode(() => normalizeUrl(t.input, t.base ?? undefined)) !== 'URL_INVALID');
    expect(wrong.map((t) => t.input)).toEqual([]);
  });
});

describe('normalizeUrl', () => {
  it('trims, resolves against a base and drops the fragment', () => {
    expect(normalizeUrl('  ../b/c.html?x=1#top \n', 'https://example.com/a/index.html')).toBe('https://example.com/b/c.html?x=1');
    expect(normalizeUrl('HTTP://Example.COM:80/a/./b/../c')).toBe('http://example.com/a/c');
    expect(normalizeUrl('', 'https://example.com/page#frag')).toBe('https://example.com/page');
  });

  it('rejects other schemes with a typed error', () => {
    for (const url of ['mailto:a@example.com', 'javascript:void(0)', 'data:text/plain,hi', 'ftp://example.com/f']) {
      expect(errorCode(() => normalizeUrl(url))).toBe('URL_UNSUPPORTED_SCHEME');
    }
  });

  it('rejects garbage, a relative URL with no base, and a bad base with URL_INVALID', () => {
    expect(errorCode(() => normalizeUrl('http://[::1'))).toBe('URL_INVALID');
    expect(errorCode(() => normalizeUrl('/relative/only'))).toBe('URL_INVALID');
    expect(errorCode(() => normalizeUrl('a.html', 'not a base'))).toBe('URL_INVALID');
    expect(errorCode(() => normalizeUrl(undefined as unknown as string))).toBe('URL_INVALID');
  });
});
