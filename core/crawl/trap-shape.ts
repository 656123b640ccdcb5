/**
 * What a URL looks like to the trap detector: its shape (digits → N, matrix and query values
 * dropped, a run of repeated path segments — as written — collapsed to one), the parameter names it carries, and
 * the features traps grow along (a segment run repeated, a query key given more than once). Two
 * URLs of one shape are "more of the same" however deep the repetition goes, so `/loop/` and
 * `/loop/loop/loop/` fall together and a chain along them can be measured.
 *
 * Also the exclude regexes the detector suggests, built from a member URL so they match the trap's
 * URLs and not the rest of the site (the detector checks that against the URLs it has seen).
 */

export interface UrlShape {
  host: string;
  /** `/cal/N/N/`, `/loop/` (repeats collapsed), `/grow?a` (query keys sorted, once each). */
  shape: string;
  /** Query keys (`?sid`) and matrix keys (`;jsessionid`), once each. */
  params: string[];
  /** Longest run of one segment unit (1–3 segments) repeated back to back: 1 when none. */
  repeats: number;
  /** Query keys given more than once: occurrences beyond the first, summed. */
  duplicateKeys: number;
  /** Has something that can vary without bound: digits, a query, matrix params or repeats. */
  variable: boolean;
}

export function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

interface Segment {
  /** The segment as written, matrix params dropped (for regexes). */
  raw: string;
  /** Digits → N (for shapes). */
  norm: string;
  matrix: string[];
}

/** No matrix params: shared by the segments that have none (most), never changed. */
const NO_MATRIX: readonly string[] = Object.freeze([]);

// Loops rather than map/flatMap/destructuring, and no object per position in repeatRuns: this
// runs for every fetched URI (bench/js-hot-bench.ts).
function segmentsOf(u: URL): Segment[] {
  const parts = u.pathname.split('/');
  // parts[0] is the empty string before the leading '/'.
  const segs: Segment[] = new Array<Segment>(Math.max(0, parts.length - 1));
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i]!;
    if (!p.includes(';')) {
      segs[i - 1] = { raw: p, norm: p.replace(/\d+/g, 'N'), matrix: NO_MATRIX as string[] };
      continue;
    }
    const [raw = '', ...m] = p.split(';');
    segs[i - 1] = { raw, norm: raw.replace(/\d+/g, 'N'), matrix: m.map((x) => x.split('=')[0]!.toLowerCase()).filter(Boolean) };
  }
  return segs;
}

/** Runs of a unit of 1–3 segments repeated back to back: where they start, their unit and count. */
function repeatRuns(norms: string[]): { start: number; unit: number; count: number }[] {
  const runs: { start: number; unit: number; count: number }[] = [];
  let i = 0;
  while (i < norms.length) {
    let bestUnit = 1;
    let bestCount = 1;
    for (let unit = 1; unit <= 3; unit++) {
      let count = 1;
      while (i + (count + 1) * unit <= norms.length && sameRange(norms, i, i + count * unit, unit)) count++;
      if (count > 1 && count * unit > bestCount * bestUnit) {
        bestUnit = unit;
        bestCount = count;
      }
    }
    if (bestCount > 1) runs.push({ start: i, unit: bestUnit, count: bestCount });
    i += bestCount * bestUnit;
  }
  return runs;
}

function sameRange(a: string[], x: number, y: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (a[x + k] !== a[y + k] || a[x + k] === '') return false;
  return true;
}

/** `parsed`: `url` parsed already by the caller (only read here); parsed here when absent. */
export function shapeOf(url: string, parsed?: URL | null): UrlShape | null {
  const u = parsed === undefined ? parseUrl(url) : parsed;
  if (!u) return null;
  const segs = segmentsOf(u);
  const norms = new Array<string>(segs.length);
  const raws = new Array<string>(segs.length);
  let matrixKeys: Set<string> | null = null;
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    norms[i] = s.norm;
    raws[i] = s.raw;
    if (s.matrix.length > 0) {
      matrixKeys ??= new Set();
      for (const k of s.matrix) matrixKeys.add(k);
    }
  }
  // Repeats of the segments as written: `/2026/11/` is two numbers, not a run.
  const runs = repeatRuns(raws);
  let collapsed = norms;
  let repeats = 1;
  if (runs.length > 0) {
    collapsed = [];
    let next = 0;
    for (const r of runs) {
      collapsed.push(...norms.slice(next, r.start), ...norms.slice(r.start, r.start + r.unit));
      next = r.start + r.unit * r.count;
      if (r.count > repeats) repeats = r.count;
    }
    collapsed.push(...norms.slice(next));
  }
  const allKeys = u.search === '' ? [] : [...u.searchParams.keys()];
  const keys = allKeys.length === 0 ? allKeys : [...new Set(allKeys)].sort();
  const matrix = matrixKeys === null ? [] : [...matrixKeys].sort();
  const params: string[] = [];
  for (const k of keys) params.push('?' + k);
  for (const k of matrix) params.push(';' + k);
  return {
    host: u.host,
    shape: '/' + collapsed.join('/') + (keys.length ? '?' + keys.join('&') : ''),
    params,
    repeats,
    duplicateKeys: allKeys.length - keys.length,
    variable: u.search !== '' || matrix.length > 0 || repeats > 1 || /\d/.test(u.pathname),
  };
}

/** The value of a query or matrix param (`?sid` / `;jsessionid`) in `url`, or null. `parsed` as in shapeOf. */
export function paramValue(url: string, param: string, parsed?: URL | null): string | null {
  const u = parsed === undefined ? parseUrl(url) : parsed;
  if (!u) return null;
  const name = param.slice(1);
  if (param.startsWith('?')) return u.searchParams.get(name);
  const m = new RegExp(`;${escapeRe(name)}=([^;/?#]*)`, 'i').exec(u.pathname);
  return m ? m[1]! : null;
}

/** `url` without the param (the resource the session id was glued to). Parses its own copy: it changes it. */
export function withoutParam(url: string, param: string): string {
  const u = parseUrl(url);
  if (!u) return url;
  const name = param.slice(1);
  if (param.startsWith('?')) u.searchParams.delete(name);
  else u.pathname = u.pathname.replace(new RegExp(`;${escapeRe(name)}=[^;/?#]*`, 'gi'), '');
  return u.href;
}

/**
 * Regex-escape for a pattern a person reads and may edit: RegExp.escape (Node 24) is correct but
 * writes a leading digit or letter as `\x3…` (`127.0.0.1` → `\x3127\.0\.0\.1`), unreadable in a
 * suggested `--exclude`. `/` is escaped too, so the pattern pastes into a JS or sed literal.
 */
function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function hostRe(host: string): string {
  return `^https?://${escapeRe(host)}`;
}

function segmentRe(raw: string): string {
  return raw
    .split(/\d+/)
    .map(escapeRe)
    .join('\\d+');
}

/**
 * An exclude for URLs of `member`'s shape: its path with numbers generalised; a repeated run as `(?:unit/){2,}` (so the page the loop starts on stays in); query
 * keys as written. Anchored at the end of the path so a sibling shape (`/cal/N/N/x`) stays in.
 */
export function shapeExclude(member: string): string {
  const u = parseUrl(member);
  if (!u) return '^$';
  const segs = segmentsOf(u);
  const runs = repeatRuns(segs.map((s) => s.raw));
  const parts: string[] = [];
  // Matrix params (`;jsessionid=…`) allowed where the member had them.
  const seg = (s: Segment) => segmentRe(s.raw) + (s.matrix.length ? '(?:;[^/?#]*)?' : '');
  let i = 0;
  let hasRun = false;
  for (const r of runs) {
    for (; i < r.start; i++) parts.push(seg(segs[i]!) + '/');
    const unit = segs.slice(r.start, r.start + r.unit);
    // The unit's own text, digits generalised: `(?:loop/){2,}`.
    parts.push(`(?:${unit.map((s) => seg(s) + '/').join('')}){2,}`);
    i = r.start + r.unit * r.count;
    hasRun = true;
  }
  const rest = segs.slice(i);
  // A run ends the pattern (what follows a loop is part of the loop); otherwise the full path.
  let path: string;
  if (hasRun) path = parts.join('');
  else path = [...parts, rest.map(seg).join('/')].join('');
  const tail = hasRun ? '' : u.search === '' ? '(?:[?#]|$)' : '\\?';
  return `${hostRe(u.host)}/${path}${tail}`;
}

/** An exclude for URLs of `member`'s path that give query key `key` more than once. */
export function repeatedKeyExclude(member: string, key: string): string {
  const u = parseUrl(member);
  if (!u) return '^$';
  const path = u.pathname.split('/').map(segmentRe).join('/');
  const k = escapeRe(encodeURIComponent(key));
  return `${hostRe(u.host)}${path}\\?(?:[^#]*&)?${k}=[^&#]*&(?:[^#]*&)?${k}=`;
}

/** An exclude for URLs on the host carrying the param (`?sid=` / `;jsessionid=`). */
export function paramExclude(host: string, param: string): string {
  const name = escapeRe(param.slice(1));
  return param.startsWith('?') ? `${hostRe(host)}/[^?#]*\\?(?:[^#]*&)?${name}=` : `${hostRe(host)}/[^?#]*;${name}=`;
}
