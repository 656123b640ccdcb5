/**
 * Crawler-trap detector: calendars, pagination explosions, ever-growing query strings and
 * session ids show up as many accepted URLs on one host that differ only in numbers or in
 * parameter values. Each accepted URL is reduced to a shape (digits → N, query values dropped,
 * keys sorted); a shape that keeps growing past a threshold on one host is flagged with an
 * exclude rule the operator can apply (logged, shown in progress and in the app). The default
 * decide rules (path repeats, path depth, hops) already stop the common traps; this catches the
 * rest and proposes, it never excludes by itself.
 */
import type { TrapWarning } from '../api/crawl-snapshot.ts';

const THRESHOLD = 500;
const MAX_SHAPES = 50_000;

export function urlShape(url: string): { host: string; shape: string; pattern: string } | null {
  const u = parse(url);
  if (!u) return null;
  return { host: u.host, shape: shapeOf(u), pattern: excludeFor(u) };
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

function queryKeys(u: URL): string[] {
  return u.search === '' ? [] : [...new Set([...u.searchParams.keys()])].sort();
}

function shapeOf(u: URL): string {
  const keys = queryKeys(u);
  return u.pathname.replace(/\d+/g, 'N') + (keys.length ? '?' + keys.join('&') : '');
}

/** The suggested exclude: the path with its numeric parts generalised, on that host. */
function excludeFor(u: URL): string {
  const escaped = u.pathname
    .split(/\d+/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('\\d+');
  return `^https?://${u.host.replace(/\./g, '\\.')}${escaped}${queryKeys(u).length ? '\\?' : ''}`;
}

export class TrapDetector {
  private counts = new Map<string, number>();
  private flagged = new Map<string, TrapWarning>();

  /** Called for every accepted URL: cheap for the common case (no digits or query in the path). */
  observe(url: string): void {
    const u = parse(url);
    if (!u) return;
    // A shape needs numbers or a query to be a trap candidate: plain paths are just a site.
    if (u.search === '' && !/\d/.test(u.pathname)) return;
    const shape = shapeOf(u);
    const key = u.host + ' ' + shape;
    const n = (this.counts.get(key) ?? 0) + 1;
    if (this.counts.size < MAX_SHAPES || this.counts.has(key)) this.counts.set(key, n);
    if (n >= THRESHOLD) {
      const w = this.flagged.get(key);
      if (w) w.count = n;
      else this.flagged.set(key, { host: u.host, pattern: shape, count: n, suggestedExclude: excludeFor(u) });
    }
  }

  warnings(): TrapWarning[] {
    return [...this.flagged.values()].sort((a, b) => b.count - a.count).slice(0, 20);
  }
}
