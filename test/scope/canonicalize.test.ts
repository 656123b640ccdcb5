import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isTroveError } from '../../core/errors.ts';
import {
  canonicalize,
  fixupQueryString,
  lowercaseSchemeHost,
  stripSessionIds,
  stripUserinfo,
  stripWww,
  stripWwwN,
} from '../../core/scope/canonicalize.ts';
import { corpusPath } from '../helpers/corpus.ts';

interface CanonVector {
  id: string;
  kind: string;
  url: string;
  canonical: string;
  canonicalizer: string;
}

const vectors = (JSON.parse(fs.readFileSync(corpusPath('surt-vectors.json'), 'utf8')) as CanonVector[]).filter(
  (v) => v.kind === 'canonicalize',
);

/**
 * The seen key follows Heritrix, so the Heritrix rule vectors are the target; each is Heritrix's
 * test of one rule alone, so it is checked against that rule's function. (The python-surt
 * canonicalizer vectors belong to the CDXJ key and are tested in surt.test.ts.)
 */
const RULES: Record<string, (url: string) => string> = {
  'heritrix LowercaseRule': lowercaseSchemeHost,
  'heritrix StripWWWRule': stripWww,
  'heritrix StripWWWNRule': stripWwwN,
  'heritrix StripUserinfoRule': stripUserinfo,
  'heritrix FixupQueryString': fixupQueryString,
  'heritrix StripSessionIDs': stripSessionIds,
};

const heritrix = vectors.filter((v) => v.canonicalizer.startsWith('heritrix '));

describe('Heritrix canonicalization rule vectors', () => {
  it('covers every Heritrix vector in the corpus with a rule', () => {
    expect(heritrix.length).toBeGreaterThanOrEqual(10);
    expect(heritrix.filter((v) => !RULES[v.canonicalizer]).map((v) => v.canonicalizer)).toEqual([]);
  });

  it.each(heritrix.map((v) => [v.id, v.canonicalizer, v.url, v.canonical] as const))('%s %s: %s', (_id, rule, url, canonical) => {
    expect(RULES[rule]!(url)).toBe(canonical);
  });
});

describe('canonicalize (the already-seen key)', () => {
  it('lowercases scheme and host but keeps path and query case', () => {
    expect(canonicalize('HTTP://Example.ORG/Docs/Page.HTML?Q=A')).toBe('http://example.org/Docs/Page.HTML?Q=A');
  });

  it('removes default ports, userinfo and the fragment', () => {
    expect(canonicalize('https://user:pw@example.org:443/a#b')).toBe('https://example.org/a');
    expect(canonicalize('http://example.org:8080/a')).toBe('http://example.org:8080/a');
  });

  it('strips www and wwwN, except on a bare root', () => {
    expect(canonicalize('http://www.example.org/a')).toBe('http://example.org/a');
    expect(canonicalize('http://www3.example.org/a?x')).toBe('http://example.org/a?x');
    expect(canonicalize('http://www.example.org/')).toBe('http://www.example.org/');
    expect(canonicalize('http://www.example.org')).toBe('http://www.example.org/');
    expect(canonicalize('http://wwwx.example.org/a')).toBe('http://wwwx.example.org/a');
    expect(canonicalize('http://www.example.org/a', { www: 'keep' })).toBe('http://www.example.org/a');
    expect(canonicalize('http://www2.example.org/a', { www: 'strip-www' })).toBe('http://www2.example.org/a');
  });

  it('removes session ids and the query that held only them', () => {
    expect(canonicalize('http://e.org/a?jsessionid=0123456789ABCDEF0123456789abcdef')).toBe('http://e.org/a');
    expect(canonicalize('http://e.org/a?x=1&PHPSESSID=abc123&y=2')).toBe('http://e.org/a?x=1&y=2');
    expect(canonicalize('http://e.org/a?sid=0123456789abcdef0123456789abcdef&x=1')).toBe('http://e.org/a?x=1');
    expect(canonicalize('http://e.org/a?ASPSESSIONIDQSCTRBTB=ABCDEFGHIJKLMNOPQRSTUVWX')).toBe('http://e.org/a');
    expect(canonicalize('http://e.org/a?CFID=123&CFTOKEN=456&x=1')).toBe('http://e.org/a?x=1');
    expect(canonicalize('http://e.org/shop;jsessionid=A1B2C3.node0?item=7')).toBe('http://e.org/shop?item=7');
  });

  it('keeps look-alikes that are not session ids', () => {
    expect(canonicalize('http://e.org/story?sid=42')).toBe('http://e.org/story?sid=42');
    expect(canonicalize('http://e.org/a?xsid=0123456789abcdef0123456789abcdef')).toBe('http://e.org/a?xsid=0123456789abcdef0123456789abcdef');
    expect(canonicalize('http://e.org/a?cfid=1')).toBe('http://e.org/a?cfid=1');
  });

  it('drops a trailing ? or & and a leading &', () => {
    expect(canonicalize('http://e.org/a?')).toBe('http://e.org/a');
    expect(canonicalize('http://e.org/a?&x=1&')).toBe('http://e.org/a?x=1');
  });

  it('gives one key for URLs that differ only in what it strips', () => {
    const same = [
      'http://example.org/p?id=3',
      'HTTP://EXAMPLE.org:80/p?id=3#x',
      'http://www.example.org/p?id=3&',
      'http://bob@www2.example.org/p?id=3&jsessionid=0123456789abcdef0123456789abcdef',
    ].map((u) => canonicalize(u));
    expect(new Set(same).size).toBe(1);
  });

  it('throws typed errors for what cannot be fetched', () => {
    for (const [url, code] of [
      ['not a url', 'URL_INVALID'],
      ['mailto:x@example.org', 'URL_UNSUPPORTED_SCHEME'],
    ] as const) {
      try {
        canonicalize(url);
        expect.unreachable();
      } catch (e) {
        expect(isTroveError(e, code)).toBe(true);
      }
    }
  });
});
