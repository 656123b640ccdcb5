/**
 * The time a crawl spent paused, over all its runs, as the crawl stored it when a run ended
 * (start-crawl.ts keeps it in the `pausedMs` meta): the reports leave it out of their rates, so
 * URIs/sec is over the time the crawl ran, as in the CLI summary and the monitor.
 */
import type { Archive } from '../archive/archive-dir.ts';

/** Paused milliseconds, 0 for a crawl never paused (or an archive that is not a crawl). */
export function pausedMsOf(archive: Archive): number {
  const ms = archive.meta<number>('pausedMs');
  return typeof ms === 'number' && ms > 0 ? ms : 0;
}
