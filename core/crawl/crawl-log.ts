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

export function timestamp17(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:TZ.]/g, '').slice(0, 17);
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
 * An append-only log file. Lines are gathered and written in batches (every 200 ms or 64 KiB),
 * so a fast crawl makes a few writes a second instead of one per URI; close() flushes.
 */
export class LineLog {
  readonly path: string;
  private stream: fs.WriteStream;
  private pending: string[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(path: string) {
    this.path = path;
    this.stream = fs.createWriteStream(path, { flags: 'a' });
    this.stream.on('error', () => {
      /* a failing log must never stop the crawl; the WARC and database are the record */
    });
  }

  write(line: string): void {
    this.pending.push(line);
    this.pendingBytes += line.length + 1;
    if (this.pendingBytes >= 64 * 1024) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), 200);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    this.stream.write(this.pending.join('\n') + '\n');
    this.pending = [];
    this.pendingBytes = 0;
  }

  close(): Promise<void> {
    this.flush();
    return new Promise((resolve) => this.stream.end(resolve));
  }
}
