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
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const path = u.pathname.replace(/\d+/g, 'N');
  const keys = [...new Set([...u.searchParams.keys()])].sort();
  const shape = path + (keys.length ? '?' + keys.join('&') : '');
  // The suggested exclude: the path with its numeric parts generalised, on that host.
  const escaped = u.pathname
    .split(/\d+/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('\\d+');
  const pattern = `^https?://${u.host.replace(/\./g, '\\.')}${escaped}${keys.length ? '\\?' : ''}`;
  return { host: u.host, shape, pattern };
}

export class TrapDetector {
  private counts = new Map<string, number>();
  private flagged = new Map<string, TrapWarning>();

  observe(url: string): void {
    const s = urlShape(url);
    if (!s) return;
    // A shape needs both numbers or a query to be a trap candidate: plain paths are just a site.
    if (!/N|\?/.test(s.shape)) return;
    const key = s.host + ' ' + s.shape;
    const n = (this.counts.get(key) ?? 0) + 1;
    if (this.counts.size < MAX_SHAPES || this.counts.has(key)) this.counts.set(key, n);
    if (n >= THRESHOLD) {
      const w = this.flagged.get(key);
      if (w) w.count = n;
      else this.flagged.set(key, { host: s.host, pattern: s.shape, count: n, suggestedExclude: s.pattern });
    }
  }

  warnings(): TrapWarning[] {
    return [...this.flagged.values()].sort((a, b) => b.count - a.count).slice(0, 20);
  }
}
