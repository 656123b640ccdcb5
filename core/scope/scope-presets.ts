/**
 * The seed-implied scope: which URLs the seeds themselves put in scope (Heritrix's
 * SurtPrefixedDecideRule with seeds-as-surt-prefixes, plus Browsertrix's preset names).
 *
 *   page    exactly the seed URLs (their embeds come in through the transclusion rule)
 *   prefix  the seed's directory: https://example.com/docs/intro.html → http://(com,example,)/docs/
 *   host    the seed's host (and port), any path
 *   domain  the registrable domain (via the Public Suffix List) and all its subdomains
 *   any     every http/https URL (the other rules still bound the crawl)
 *
 * As in Heritrix, prefixes are Heritrix SURTs with https coerced to http, so a site that mixes
 * http and https links stays in scope. Prefixes are indexed by authority, so a crawl with
 * thousands of seeds still decides in constant time per URL.
 */
import { getDomain } from 'tldts';
import { canonicalize } from './canonicalize.ts';
import { normalizeUrl } from './normalize-url.ts';
import type { ScopePreset } from '../api/settings.ts';
import type { DecideRule, NotAccepted, RuleInput } from './scope-types.ts';

interface SeedPrefix {
  /** Reversed host (+ `,` for names) and `:port`, e.g. `com,example,www,:8080`; a domain prefix has no port. */
  authority: string;
  /** Path prefix; `null` for a domain prefix (any path, any port). */
  path: string | null;
  seed: string;
}

export interface SeedScopeRule extends DecideRule {
  /** A new seed (or a seed's redirect target, which becomes a seed). */
  addSeed(url: string): void;
  /** The Heritrix-style SURT prefixes in force (empty for `page` and `any`). */
  prefixes(): string[];
}

/** The Heritrix SURT prefix a seed implies under `preset` (null for page and any). */
export function seedSurtPrefix(preset: ScopePreset, seedUrl: string): string | null {
  const p = prefixFor(preset, new URL(normalizeUrl(seedUrl)), seedUrl);
  return p ? formatPrefix(p) : null;
}

export function seedScopeRule(preset: ScopePreset, seeds: readonly string[]): SeedScopeRule {
  const name = `scope-${preset}`;
  const pageKeys = new Map<string, string>(); // canonical key → seed
  const byHost = new Map<string, SeedPrefix[]>();
  const byDomain = new Map<string, SeedPrefix>();
  const all: SeedPrefix[] = [];
  const known = new Set<string>();
  let summary: string | null = null; // "a, b, c and N more", built once per change of seeds
  const prefixList = (): string => (summary ??= listOf(all.map(formatPrefix)));

  const addSeed = (raw: string): void => {
    const href = normalizeUrl(raw);
    if (preset === 'page') {
      pageKeys.set(canonicalize(href), raw);
      return;
    }
    const p = prefixFor(preset, new URL(href), raw);
    if (!p) return;
    const key = formatPrefix(p);
    if (known.has(key)) return;
    known.add(key);
    all.push(p);
    summary = null;
    if (p.path === null) byDomain.set(p.authority, p);
    else byHost.set(p.authority, [...(byHost.get(p.authority) ?? []), p]);
  };
  for (const s of seeds) addSeed(s);

  const describe = (): string => {
    if (preset === 'any') return `${name}: ACCEPT every http/https URL`;
    if (preset === 'page') return `${name}: ACCEPT the seed pages themselves (${listOf([...pageKeys.values()])})`;
    return `${name}: ACCEPT URLs under ${prefixList()}`;
  };

  const decide = ({ candidate, url }: RuleInput) => {
    if (candidate.seed) return { result: 'ACCEPT' as const, reason: 'a seed' };
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      return { result: 'PASS' as const, reason: 'not an http/https URL' };
    }
    if (preset === 'any') return { result: 'ACCEPT' as const, reason: 'scope "any" accepts every http/https URL' };
    if (preset === 'page') {
      const seed = pageKeys.get(canonicalize(url.href));
      return seed !== undefined
        ? { result: 'ACCEPT' as const, reason: `the seed page ${seed}` }
        : { result: 'PASS' as const, reason: 'not one of the seed pages' };
    }
    const hit = match(url);
    return hit
      ? { result: 'ACCEPT' as const, reason: `under ${formatPrefix(hit)} (seed ${hit.seed})` }
      : { result: 'PASS' as const, reason: `not under ${prefixList()}` };
  };

  // For a URL nothing accepted: which scope did not take it, in the words a person needs
  // ("other host", "not under https://h/p/"), naming the seeds that set that scope.
  const whyNotAccepted = ({ candidate, url }: RuleInput): NotAccepted | null => {
    if (candidate.seed || !url || (url.protocol !== 'http:' && url.protocol !== 'https:') || preset === 'any') return null;
    if (preset === 'page') return { key: 'not-a-seed-page', reason: `not one of the seed pages (page scope of ${seedList([...pageKeys.values()])})` };
    if (preset === 'domain') {
      const domain = getDomain(url.hostname, { allowPrivateDomains: true }) ?? url.hostname;
      return { key: 'other-domain', reason: `other domain ${domain} (domain scope of ${seedList(all.map((p) => p.seed))})` };
    }
    const { labels, isName, port } = authorityOf(url);
    const sameHost = byHost.get(isName ? `${labels.join(',')},${port}` : `${labels[0]}${port}`) ?? [];
    if (preset === 'prefix' && sameHost.length > 0) {
      return { key: 'outside-prefix', reason: `not under ${listOf(sameHost.map(humanPrefix))} (prefix scope of ${seedList(sameHost.map((p) => p.seed))})` };
    }
    return { key: 'other-host', reason: `other host ${url.host} (${preset} scope of ${seedList(all.map((p) => p.seed))})` };
  };

  const match = (url: URL): SeedPrefix | null => {
    const { labels, isName, port } = authorityOf(url);
    const authority = isName ? `${labels.join(',')},${port}` : `${labels[0]}${port}`;
    for (const p of byHost.get(authority) ?? []) if (url.pathname.startsWith(p.path!)) return p;
    if (isName && byDomain.size > 0) {
      let key = '';
      for (const label of labels) {
        key += `${label},`;
        const p = byDomain.get(key);
        if (p) return p;
      }
    }
    return null;
  };

  return { name, describe, decide, whyNotAccepted, addSeed, prefixes: () => all.map(formatPrefix) };
}

function prefixFor(preset: ScopePreset, url: URL, seed: string): SeedPrefix | null {
  const { labels, isName, port } = authorityOf(url);
  const hostKey = isName ? `${labels.join(',')},${port}` : `${labels[0]}${port}`;
  switch (preset) {
    case 'page':
    case 'any':
      return null;
    case 'prefix':
      return { authority: hostKey, path: url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1), seed };
    case 'host':
      return { authority: hostKey, path: '/', seed };
    case 'domain': {
      // Private suffixes count (github.io, blogspot.com): a seed on foo.github.io must not put all of github.io in scope.
      const domain = isName ? getDomain(url.hostname, { allowPrivateDomains: true }) : null;
      if (!domain) return { authority: hostKey, path: '/', seed }; // IP addresses, localhost
      return { authority: `${domain.split('.').reverse().join(',')},`, path: null, seed };
    }
  }
}

/** Reversed host labels (a single entry for IP addresses), whether it is a name, and `:port` or ''. */
function authorityOf(url: URL): { labels: string[]; isName: boolean; port: string } {
  const host = url.hostname;
  const isName = !host.startsWith('[') && !/^\d+\.\d+\.\d+\.\d+$/.test(host);
  return { labels: isName ? host.split('.').reverse() : [host], isName, port: url.port ? `:${url.port}` : '' };
}

function formatPrefix(p: SeedPrefix): string {
  return p.path === null ? `http://(${p.authority}` : `http://(${p.authority})${p.path}`;
}

/** A path prefix as the URL a person would type: the seed's scheme and host, the prefix's path. */
function humanPrefix(p: SeedPrefix): string {
  const u = new URL(normalizeUrl(p.seed));
  return `${u.protocol}//${u.host}${p.path ?? '/'}`;
}

function seedList(seeds: string[]): string {
  return `${seeds.length === 1 ? 'seed' : 'seeds'} ${listOf(seeds)}`;
}

function listOf(items: string[]): string {
  if (items.length === 0) return '(no seeds)';
  if (items.length <= 3) return items.join(', ');
  return `${items.slice(0, 3).join(', ')} and ${items.length - 3} more`;
}
