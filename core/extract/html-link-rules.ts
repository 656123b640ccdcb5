/**
 * Which HTML attributes hold URLs and what hop type each gets, in Heritrix's terms:
 * navigation is L, what the page needs to render is E, anything a script might use is X.
 * Kept apart from the tokenizer loop in html-links.ts so the table is easy to read and extend.
 */
import type { Hop } from './outlink.ts';

/** `<link rel=…>` values whose target the page loads itself: embeds. */
const EMBED_RELS = new Set([
  'stylesheet',
  'icon',
  'apple-touch-icon',
  'apple-touch-icon-precomposed',
  'mask-icon',
  'fluid-icon',
  'preload',
  'modulepreload',
  'manifest',
]);

/** `<link rel=…>` values that name an origin to warm up, not a resource: nothing to fetch. */
const ORIGIN_ONLY_RELS = new Set(['preconnect', 'dns-prefetch']);

/**
 * The hop for `<link href>` (and `Link:` headers): E when the page loads it, L otherwise
 * (canonical, alternate, next, prefetch …), null for preconnect/dns-prefetch.
 */
export function linkRelHop(rel: string): Hop | null {
  const tokens = rel.toLowerCase().split(/\s+/).filter(Boolean);
  if (tokens.some((t) => EMBED_RELS.has(t))) return 'E';
  if (tokens.length > 0 && tokens.every((t) => ORIGIN_ONLY_RELS.has(t))) return null;
  return 'L';
}

/** Attributes that hold one URL on any element, and their hop. */
const ANY_ELEMENT_ATTRS: Record<string, Hop> = {
  src: 'E',
  lowsrc: 'E',
  poster: 'E',
  background: 'E',
  longdesc: 'L',
};

/** Attributes that hold one URL only on some elements. */
const ELEMENT_ATTRS: Record<string, Record<string, Hop>> = {
  a: { href: 'L' },
  area: { href: 'L' },
  object: { data: 'E' },
  blockquote: { cite: 'L' },
  q: { cite: 'L' },
  del: { cite: 'L' },
  ins: { cite: 'L' },
};

/** SVG: `<a href|xlink:href>` navigates; `<image>`, `<use>`, `<feimage>` load what they name. */
const SVG_ATTRS: Record<string, Record<string, Hop>> = {
  a: { href: 'L', 'xlink:href': 'L' },
  image: { href: 'E', 'xlink:href': 'E' },
  use: { href: 'E', 'xlink:href': 'E' },
  feimage: { href: 'E', 'xlink:href': 'E' },
};

/**
 * `data-*` attributes that lazy-loading and embed scripts read URLs from (the webarchive-commons
 * link-extraction tests list data-href and data-uri). Only a script turns them into requests,
 * so they are speculative (X): the scope rules allow one such hop off an in-scope page.
 */
const DATA_URL_ATTRS = ['data-href', 'data-uri', 'data-src', 'data-original', 'data-lazy-src', 'data-bg'];
const DATA_SRCSET_ATTRS = ['data-srcset', 'data-lazy-srcset'];

export type AttrRule =
  | { readonly kind: 'url'; readonly hop: Hop }
  | { readonly kind: 'srcset'; readonly hop: Hop }
  | { readonly kind: 'css' }
  | { readonly kind: 'script' };

// One shared, frozen rule object per outcome: looking a rule up allocates nothing.
const URL_RULES = new Map<Hop, AttrRule>();
function urlRule(hop: Hop): AttrRule {
  let rule = URL_RULES.get(hop);
  if (rule === undefined) URL_RULES.set(hop, (rule = Object.freeze({ kind: 'url', hop })));
  return rule;
}
const SRCSET_E: AttrRule = Object.freeze({ kind: 'srcset', hop: 'E' });
const SRCSET_X: AttrRule = Object.freeze({ kind: 'srcset', hop: 'X' });
const CSS_RULE: AttrRule = Object.freeze({ kind: 'css' });
const SCRIPT_RULE: AttrRule = Object.freeze({ kind: 'script' });

function ruleTable(table: Record<string, Record<string, Hop>>): Map<string, ReadonlyMap<string, AttrRule>> {
  const out = new Map<string, ReadonlyMap<string, AttrRule>>();
  for (const [tag, attrs] of Object.entries(table)) out.set(tag, new Map(Object.entries(attrs).map(([name, hop]) => [name, urlRule(hop)])));
  return out;
}

/** tag → attribute → rule, for the attributes that hold a URL only on that element (HTML, then SVG). */
const HTML_ELEMENT_RULES = ruleTable(ELEMENT_ATTRS);
const SVG_ELEMENT_RULES = ruleTable(SVG_ATTRS);

/** attribute → rule, for the attributes that hold URLs on any element (event handlers aside). */
const GENERIC_RULES: ReadonlyMap<string, AttrRule> = new Map<string, AttrRule>([
  ...Object.entries(ANY_ELEMENT_ATTRS).map(([name, hop]): [string, AttrRule] => [name, urlRule(hop)]),
  ['srcset', SRCSET_E],
  ['imagesrcset', SRCSET_E],
  ['style', CSS_RULE],
  ...DATA_URL_ATTRS.map((name): [string, AttrRule] => [name, urlRule('X')]),
  ...DATA_SRCSET_ATTRS.map((name): [string, AttrRule] => [name, SRCSET_X]),
]);

/**
 * Per first code unit of an attribute name, bit n set when some name with a rule has that first
 * character and length n (bit 31: 31 or more). Event handlers (`on…`) have every length but 0–2.
 */
const RULE_NAME_SHAPES = new Int32Array(128);
for (const name of [
  ...GENERIC_RULES.keys(),
  ...[HTML_ELEMENT_RULES, SVG_ELEMENT_RULES].flatMap((table) => [...table.values()].flatMap((rules) => [...rules.keys()])),
]) {
  RULE_NAME_SHAPES[name.charCodeAt(0)]! |= 1 << Math.min(name.length, 31);
}
RULE_NAME_SHAPES[0x6f /* o */]! |= ~0b111;

/**
 * Whether an attribute whose name has this length and first code unit can have a rule on some
 * element (attrRuleIn): false turns it away before its name is made a string. On the Python docs
 * seven attributes in eight (`class`, `title`, `id` …) are turned away so.
 */
export function mayHaveAttrRule(length: number, first: number): boolean {
  return first < 128 && (RULE_NAME_SHAPES[first]! & (1 << Math.min(length, 31))) !== 0;
}

/**
 * The attributes that hold a URL only on this element (`<a href>`, `<object data>` …; in SVG
 * `<use href>` …), or undefined. Look it up once per start tag, then ask attrRuleIn per attribute.
 */
export function elementAttrRules(tag: string, foreign: boolean): ReadonlyMap<string, AttrRule> | undefined {
  return (foreign ? SVG_ELEMENT_RULES : HTML_ELEMENT_RULES).get(tag);
}

/** The rule for attribute `attr` of an element whose own rules are `own` (from elementAttrRules), or null. */
export function attrRuleIn(own: ReadonlyMap<string, AttrRule> | undefined, attr: string): AttrRule | null {
  if (own !== undefined) {
    const rule = own.get(attr);
    if (rule !== undefined) return rule;
  }
  const rule = GENERIC_RULES.get(attr);
  if (rule !== undefined) return rule;
  // Event handlers: on… (checked by char code, no string allocated).
  if (attr.length > 2 && attr.charCodeAt(0) === 0x6f /* o */ && attr.charCodeAt(1) === 0x6e /* n */) return SCRIPT_RULE;
  return null;
}

/**
 * The rule for one attribute of one start tag, or null when it holds no URL. `foreign` is true
 * inside `<svg>`/`<math>`. Tags with special handling (base, meta, link, form) are not covered.
 * Rules are shared frozen objects: compare them, do not change them.
 */
export function attrRule(tag: string, attr: string, foreign: boolean): AttrRule | null {
  return attrRuleIn(elementAttrRules(tag, foreign), attr);
}

/**
 * The URLs of a `srcset` value: every image candidate, as the WHATWG "parse a srcset attribute"
 * steps split them (a URL runs to whitespace; a trailing comma ends it; descriptors run to a
 * comma outside parentheses).
 */
export function srcsetUrls(value: string): string[] {
  const urls: string[] = [];
  const n = value.length;
  let i = 0;
  while (i < n) {
    while (i < n && (isSpace(value.charCodeAt(i)) || value[i] === ',')) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !isSpace(value.charCodeAt(i))) i++;
    let url = value.slice(start, i);
    if (url.endsWith(',')) {
      // Trailing commas cut by a scan from the end: `/,+$/` took O(n²) on a run of commas
      // followed by other text (100,000 of them: 9 s on the crawl thread).
      let to = url.length;
      while (to > 0 && url.charCodeAt(to - 1) === 0x2c) to--;
      url = url.slice(0, to);
    } else {
      // Skip descriptors up to a comma that is not inside parentheses.
      let parens = 0;
      while (i < n) {
        const c = value[i];
        if (c === '(') parens++;
        else if (c === ')') parens = Math.max(0, parens - 1);
        else if (c === ',' && parens === 0) break;
        i++;
      }
    }
    if (url !== '') urls.push(url);
  }
  return urls;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

/** Extensions that make a bare relative string in script code look like a URL. */
const LIKELY_EXTENSION =
  /^[\w\-.~%!$&'()*+,;=:@/]+\.(?:s?html?|xhtml|php\d?|aspx?|jsp|cgi|pl|css|js|json|xml|rss|gif|jpe?g|png|svg|webp|avif|ico|pdf|mp[34]|webm|ogg|ogv|swf|txt|zip)(?:[?#]\S*)?$/i;

/**
 * URLs in script code (event-handler attributes): string literals that look like a URL, in the
 * spirit of Heritrix's speculative JS extraction. Deliberately strict (absolute, protocol-relative,
 * path-rooted, or a file name with a known extension) because every false positive is a request.
 */
export function scriptStringUrls(code: string): string[] {
  const urls: string[] = [];
  const re = /(["'])((?:\\.|(?!\1)[^\\\r\n]){1,2048})\1/g;
  for (const m of code.matchAll(re)) {
    const s = m[2]!.replace(/\\(.)/g, '$1');
    if (looksLikeUrl(s)) urls.push(s);
  }
  return urls;
}

function looksLikeUrl(s: string): boolean {
  if (/\s/.test(s) || s.length < 2) return false;
  if (/^(?:https?:)?\/\/[^/]/i.test(s)) return true;
  if (/^\.{0,2}\/[\w\-.~%]/.test(s)) return true;
  return LIKELY_EXTENSION.test(s);
}
