/**
 * logs/crawl.log in Heritrix's line format, so people who grep and script against Heritrix
 * logs keep their habits. One line per URI outcome (retries do not log until the final one):
 *
 *   2026-11-21T09:00:00.123Z   200       1234 http://x/a LLE http://x/ text/html #003 20261121090000080+43 sha1:ABC… - 2t,duplicate:digest
 *
 * Fields: log time, status (HTTP code or negative outcome), size, URI, hops path ('-' for a seed),
 * via, MIME, worker slot, fetch start (17 digits) '+' duration ms, payload digest, source tag,
 * annotations.
 */
import fs from 'node:fs';
import { timestamp17 } from '../formats/timestamp.ts';

export interface CrawlLogEntry {
  time: Date;
  status: number;
  size: number;
  url: string;
  hopsPath: string;
  via: string | null;
  mime: string | null;
  slot: number;
  fetchStart?: number;
  durationMs?: number;
  digest?: string | null;
  sourceTag?: string | null;
  annotations?: string[];
}

export function formatCrawlLogLine(e: CrawlLogEntry): string {
  const fetchTiming = e.fetchStart != null ? `${timestamp17(e.fetchStart)}+${Math.round(e.durationMs ?? 0)}` : '-';
  return [
    e.time.toISOString(),
    String(e.status).padStart(5),
    String(e.size).padStart(10),
    e.url,
    e.hopsPath || '-',
    e.via || '-',
    e.mime || '-',
    `#${String(e.slot).padStart(3, '0')}`,
    fetchTiming,
    e.digest || '-',
    e.sourceTag || '-',
    e.annotations && e.annotations.length > 0 ? e.annotations.join(',') : '-',
  ].join(' ');
}

/**
 * An append-only log file. Each line is appended with one synchronous write (O_APPEND), so a
 * `kill -9` loses no line of a URI whose outcome the database already holds — a few
 * microseconds per URI, cheaper than being unsure what the log says.
 */
export class LineLog {
  readonly path: string;
  private fd: number | null;

  constructor(path: string) {
    this.path = path;
    this.fd = fs.openSync(path, 'a');
  }

  write(line: string): void {
    if (this.fd === null) return;
    try {
      fs.writeSync(this.fd, line + '\n');
    } catch {
      /* a failing log must never stop the crawl; the WARC and database are the record */
    }
  }

  close(): Promise<void> {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    return Promise.resolve();
  }
}
