/**
 * What part of a URL robots.txt rules see, and how one rule pattern matches it (RFC 9309 §2.2.2,
 * §2.2.3). Written by hand: the matching has to be octet-exact and follow the RFC's
 * percent-encoding table, which no npm package does (see parse-robots.ts for the measurement).
 *
 * Strings here are "octet strings": one JS char per byte (latin1), so `.length` is a length in
 * octets, as RFC 9309's longest-match rule wants, and no UTF-8 decoding can mangle odd bytes.
 */

/** RFC 3986 unreserved characters: the only ones whose %XX form RFC 9309 decodes before matching. */
function isUnreserved(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x2d || // -
    code === 0x2e || // .
    code === 0x5f || // _
    code === 0x7e // ~
  );
}

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9A-Fa-f]$/.test(c);
}

function hexByte(code: number): string {
  return `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * Normalise percent-encoding in an octet string: `%xx` of an unreserved character is decoded
 * (`%62` → `b`, RFC 9309's table), any other `%xx` gets upper-case hex (`%aa` → `%AA`), and with
 * `encodeRaw` every octet ≥ 0x80 is percent-encoded (`á` as UTF-8 → `%C3%A1`). Rules are
 * normalised with `encodeRaw`; URLs without it, because RFC 9309 leaves encoding the URL to the
 * caller and a raw UTF-8 URL must not match an encoded rule (corpus vector robots-053).
 */
export function normalizeOctets(octets: string, encodeRaw: boolean): string {
  let out = '';
  for (let i = 0; i < octets.length; i++) {
    const c = octets[i]!;
    if (c === '%' && isHex(octets[i + 1]) && isHex(octets[i + 2])) {
      const code = parseInt(octets.slice(i + 1, i + 3), 16);
      out += isUnreserved(code) ? String.fromCharCode(code) : hexByte(code);
      i += 2;
    } else if (encodeRaw && c.charCodeAt(0) >= 0x80) {
      out += hexByte(c.charCodeAt(0));
    } else {
      out += c;
    }
  }
  return out;
}

/** A JS (UTF-16) string as an octet string of its UTF-8 bytes. */
export function toOctets(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** An octet string back to readable text (invalid UTF-8 shows as U+FFFD). */
export function fromOctets(octets: string): string {
  return Buffer.from(octets, 'latin1').toString('utf8');
}

/**
 * A rule pattern as Google's reference parser escapes it (`á` → `%C3%A1`, `%aa` → `%AA`), plus
 * RFC 9309's decoding of unreserved characters. Takes and returns ordinary text.
 */
export function escapeRulePattern(pattern: string): string {
  return normalizeOctets(toOctets(pattern), true);
}

/**
 * The part of a URL that rules are matched against: path, params and query, no fragment, and
 * `/` when that is empty. Deliberately not WHATWG `URL`: it would percent-encode raw UTF-8 and
 * reject scheme-less input, and RFC 9309 matches what the caller gives. Same results as Google's
 * `GetPathParamsQuery` (robots-path-vectors.json): `example.com?a` → `/?a`, `//a/b/c` → `/b/c`.
 */
export function matchPathOf(url: string): string {
  const searchStart = url.startsWith('//') ? 2 : 0;
  const earlyPath = firstOf(url, '/?;', searchStart);
  let protocolEnd = url.indexOf('://', searchStart);
  // A path, params or query that starts before "://" means "://" is not a scheme separator.
  if (protocolEnd >= 0 && earlyPath >= 0 && earlyPath < protocolEnd) protocolEnd = -1;
  protocolEnd = protocolEnd < 0 ? searchStart : protocolEnd + 3;
  const pathStart = firstOf(url, '/?;', protocolEnd);
  if (pathStart < 0) return '/';
  const hash = url.indexOf('#', searchStart);
  if (hash >= 0 && hash < pathStart) return '/';
  const path = url.slice(pathStart, hash < 0 ? url.length : hash);
  return path.startsWith('/') ? path : `/${path}`;
}

function firstOf(s: string, chars: string, from: number): number {
  for (let i = from; i < s.length; i++) if (chars.includes(s[i]!)) return i;
  return -1;
}

/** The octet string a URL is matched as: its match path, UTF-8 octets, %-normalised. */
export function urlMatchOctets(url: string): string {
  return normalizeOctets(toOctets(matchPathOf(url)), false);
}

/**
 * Does a normalised pattern match the start of a normalised path? `*` matches any run of octets;
 * `$` anchors the end only when it is the pattern's last octet (elsewhere it is literal, as in
 * Google's parser and Heritrix's tests). Patterns without `*` take a plain string fast path;
 * the general case tracks the set of reachable path positions, O(path × pattern), never
 * backtracking, so no robots.txt can make it explode.
 */
export function patternMatches(path: string, pattern: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  if (!body.includes('*')) return anchored ? path === body : path.startsWith(body);

  const n = path.length;
  let positions: number[] = [0];
  for (let p = 0; p < body.length; p++) {
    const c = body[p]!;
    if (c === '*') {
      // Every position from the smallest reachable one onwards is now reachable.
      const from = positions[0]!;
      positions = [];
      for (let i = from; i <= n; i++) positions.push(i);
      continue;
    }
    const next: number[] = [];
    for (const pos of positions) if (pos < n && path[pos] === c) next.push(pos + 1);
    if (next.length === 0) return false;
    positions = next;
  }
  return anchored ? positions[positions.length - 1] === n : true;
}
