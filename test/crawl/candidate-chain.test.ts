/**
 * The candidate chain parses each outlink once and hands that parse to the scope rules and the
 * queue key (issue 20: the crawl thread parsed every link four times). These tests pin that the
 * candidates and rejections are exactly what the separate string-in steps give.
 */
import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../core/api/settings.ts';
import { CandidateChain, type Rejection } from '../../core/crawl/candidate-chain.ts';
import type { Candidate } from '../../core/frontier/frontier.ts';
import { queueKeyFor } from '../../core/frontier/queue-assignment.ts';
import { canonicalize, canonicalizeNormalized } from '../../core/scope/canonicalize.ts';
import { buildScope, scopeSettingsFrom } from '../../core/scope/decide-rules.ts';
import { fingerprint } from '../../core/scope/fingerprint.ts';
import { normalizeUrl, parseFetchableUrl } from '../../core/scope/normalize-url.ts';
import type { Outlink } from '../../core/extract/outlink.ts';

const SEED = 'https://Example.com/docs/';

// Links as the extraction worker sends them (absolute), with the shapes the rules care about.
const LINKS: Outlink[] = [
  { url: 'https://example.com/docs/a.html', hop: 'L', context: 'a/@href' },
  { url: 'HTTPS://EXAMPLE.COM:443/docs/./b/../c.html?x=1#frag', hop: 'L', context: 'a/@href' },
  { url: 'https://www.example.com/docs/www.html', hop: 'L', context: 'a/@href' },
  { url: 'https://www2.example.com/docs/', hop: 'E', context: 'img/@src' },
  { url: 'https://example.com/docs/s.jsp;jsessionid=ABC123?PHPSESSID=x&y=2&', hop: 'L', context: 'a/@href' },
  { url: 'https://user:pw@example.com:8443/docs/port', hop: 'L', context: 'a/@href' },
  { url: 'https://bücher.example/docs/ü', hop: 'E', context: 'img/@src' },
  { url: 'http://[::1]:8080/docs/v6', hop: 'L', context: 'a/@href' },
  { url: 'https://other.example.org/x.png', hop: 'E', context: 'img/@src' },
  { url: 'https://other.example.org/page', hop: 'L', context: 'a/@href' },
  { url: 'https://example.com/elsewhere/', hop: 'L', context: 'a/@href' },
  { url: 'https://example.com/docs/a/a/a/a/a/a/a/a', hop: 'L', context: 'a/@href' },
  { url: 'https://example.com/docs/%7Euser/%41', hop: 'R', context: 'location' },
  { url: 'mailto:someone@example.com', hop: 'L', context: 'a/@href' },
  { url: 'not a url', hop: 'L', context: 'a/@href' },
];

function run(queuePolicy: string) {
  const scope = buildScope(scopeSettingsFrom({ ...defaultSettings(), maxPathRepeats: 3 }), [SEED]);
  const accepted: Candidate[] = [];
  const rejected: Rejection[] = [];
  const chain = new CandidateChain(scope, queuePolicy, (c) => accepted.push(c), (r) => rejected.push(r));
  const out = chain.fromOutlinks({ url: normalizeUrl(SEED), hopsPath: 'L', seed: true }, LINKS, true);
  return { scope, accepted, rejected, out };
}

describe('candidate chain, one parse per outlink', () => {
  for (const policy of ['host', 'elfhash:7']) {
    it(`gives what the string-in steps give (${policy})`, () => {
      const { scope, accepted, rejected, out } = run(policy);
      expect(out).toEqual(accepted);
      // The same links through the separate steps, each parsing the string itself.
      const wantAccepted: Partial<Candidate>[] = [];
      const wantRejected: Rejection[] = [];
      for (const link of LINKS) {
        let url: string;
        try {
          url = normalizeUrl(link.url);
        } catch {
          continue;
        }
        const hopsPath = 'L' + link.hop;
        const d = scope.decide({ url, hopsPath, via: normalizeUrl(SEED), seed: link.hop === 'R' });
        if (d.decision === 'REJECT') {
          wantRejected.push({ url, hopsPath, via: normalizeUrl(SEED), rule: d.rule, reason: d.reason });
          continue;
        }
        const canonical = canonicalize(url);
        wantAccepted.push({ url, canonical, fingerprint: fingerprint(canonical), queueKey: queueKeyFor(url, policy), hopsPath, via: normalizeUrl(SEED), viaContext: link.context });
      }
      expect(accepted.length).toBe(wantAccepted.length);
      expect(accepted.length).toBeGreaterThan(5);
      expect(rejected.length).toBeGreaterThan(2);
      accepted.forEach((c, i) => expect(c).toMatchObject(wantAccepted[i]!));
      expect(rejected).toEqual(wantRejected);
    });
  }

  it('a link found again is reported again, the same, with its own page as via', () => {
    const { scope, accepted, rejected } = run('host');
    const chain = new CandidateChain(scope, 'host', () => {}, () => {});
    const seen: Rejection[] = [];
    const second = new CandidateChain(scope, 'host', () => {}, (r) => seen.push(r));
    const parentA = { url: 'https://example.com/docs/a.html', hopsPath: 'L', seed: false };
    const parentB = { url: 'https://example.com/docs/b.html', hopsPath: 'L', seed: false };
    const a = second.fromOutlinks(parentA, LINKS, false);
    const b = second.fromOutlinks(parentB, LINKS, false); // every link remembered from the first page
    expect(b.map((c) => ({ ...c, via: parentA.url }))).toEqual(a);
    expect(b.every((c) => c.via === parentB.url)).toBe(true);
    expect(seen.length).toBe(2 * rejected.length);
    expect(seen.slice(rejected.length).map((r) => r.via)).toEqual(rejected.map(() => parentB.url));
    // And what a fresh chain (nothing remembered) makes of the second page is the same.
    expect(chain.fromOutlinks(parentB, LINKS, false)).toEqual(b);
    expect(accepted.length).toBeGreaterThan(0);
  });

  it('forgets what it remembered when a seed is added (a redirected seed widens the scope)', () => {
    const scope = buildScope(scopeSettingsFrom(defaultSettings()), [SEED]);
    const chain = new CandidateChain(scope, 'host', () => {}, () => {});
    const parent = { url: normalizeUrl(SEED), hopsPath: '', seed: true };
    const link: Outlink[] = [{ url: 'https://other.example.org/page', hop: 'L', context: 'a/@href' }];
    expect(chain.fromOutlinks(parent, link, false)).toEqual([]);
    scope.addSeed('https://other.example.org/');
    expect(chain.fromOutlinks(parent, link, false).map((c) => c.url)).toEqual(['https://other.example.org/page']);
  });

  it('a rule decision with the parse handed over equals one without', () => {
    const scope = buildScope(scopeSettingsFrom(defaultSettings()), [SEED]);
    for (const link of LINKS) {
      let parsed: URL;
      try {
        parsed = parseFetchableUrl(link.url);
      } catch {
        continue;
      }
      const c = { url: parsed.href, hopsPath: 'LL', via: SEED };
      expect(scope.decide({ ...c, parsed })).toEqual(scope.decide(c));
      expect(parsed.href).toBe(normalizeUrl(link.url)); // the rules did not change it
      expect(canonicalizeNormalized(parsed.href)).toBe(canonicalize(link.url));
    }
  });
});
