/**
 * The CLI's view of a running crawl: a live progress bar on a terminal (downloaded / queued /
 * failed, URIs/s, KB/s, elapsed), plain periodic lines when output is not a TTY, and the end
 * summary (hosts, status codes, MIME types, bytes).
 */
import cliProgress from 'cli-progress';
import type { CrawlSnapshot } from '../api/crawl-snapshot.ts';
import type { CommandIo } from './robots-command.ts';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h > 0 ? `${h}:` : ''}${String(m).padStart(h > 0 ? 2 : 1, '0')}:${String(s % 60).padStart(2, '0')}`;
}

export class CrawlProgress {
  private bar: cliProgress.SingleBar | null = null;
  private io: CommandIo;
  private lastPlain = 0;

  constructor(io: CommandIo, opts: { tty: boolean; enabled: boolean }) {
    this.io = io;
    if (opts.tty && opts.enabled) {
      this.bar = new cliProgress.SingleBar(
        {
          format: ' {bar} {percentage}% | {downloaded} done, {queued} queued, {failed} failed | {rate} URI/s {kbps} KB/s | {elapsed} | {state}',
          barsize: 24,
          hideCursor: true,
          clearOnComplete: false,
          stopOnComplete: false,
          etaBuffer: 50,
          stream: process.stderr,
        },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(1, 0, this.payload(null));
    }
  }

  private payload(s: CrawlSnapshot | null): Record<string, string | number> {
    return {
      downloaded: s?.downloaded ?? 0,
      queued: s?.queued ?? 0,
      failed: s?.failed ?? 0,
      rate: (s?.urisPerSec ?? 0).toFixed(1),
      kbps: Math.round(s?.kbPerSec ?? 0),
      elapsed: formatElapsed(s?.elapsedMs ?? 0),
      state: s?.state ?? 'starting',
    };
  }

  update(s: CrawlSnapshot): void {
    const done = s.downloaded + s.failed;
    const total = Math.max(1, done + s.queued + s.inFlight);
    if (this.bar) {
      this.bar.setTotal(total);
      this.bar.update(done, this.payload(s));
      return;
    }
    const now = Date.now();
    if (now - this.lastPlain >= 5000) {
      this.lastPlain = now;
      this.io.stderr.write(
        `[${formatElapsed(s.elapsedMs)}] ${s.state}: ${s.downloaded} done, ${s.queued} queued, ${s.failed} failed, ${s.urisPerSec.toFixed(1)} URI/s, ${Math.round(s.kbPerSec)} KB/s\n`,
      );
    }
  }

  message(line: string): void {
    if (this.bar) this.bar.stop();
    this.io.stderr.write(line + '\n');
    if (this.bar) this.bar.start(1, 0);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}

function top(record: Record<string, number>, n: number): string {
  const rows = Object.entries(record).sort((a, b) => b[1] - a[1]);
  const shown = rows.slice(0, n).map(([k, v]) => `${k} ${v}`);
  if (rows.length > n) shown.push(`… ${rows.length - n} more`);
  return shown.join(', ') || '-';
}

export function formatSummary(s: CrawlSnapshot): string[] {
  return [
    `Crawl ${s.name} ${s.state}${s.finishReason ? ` (${s.finishReason})` : ''}${s.message ? `: ${s.message}` : ''}`,
    `  directory   ${s.dir}`,
    `  elapsed     ${formatElapsed(s.elapsedMs)}  (${s.avgUrisPerSec.toFixed(1)} URI/s, ${Math.round(s.avgKbPerSec)} KB/s on average)`,
    `  URIs        ${s.downloaded} downloaded, ${s.failed} failed, ${s.queued} still queued, ${s.pages} HTML pages`,
    `  bytes       ${formatBytes(s.bytes)} (${formatBytes(s.novelBytes)} novel, ${formatBytes(s.duplicateBytes)} duplicate); WARC ${formatBytes(s.warcBytes)}`,
    `  hosts       ${top(Object.fromEntries(s.hosts.map((h) => [h.queue, h.done + h.failed])), 8)}`,
    `  status      ${top(s.statusCodes, 10)}`,
    `  MIME types  ${top(s.mimeTypes, 8)}`,
    `  out of scope ${top(s.scopeRejections, 6)}`,
    `  WARC files  ${s.warcFiles.join(', ') || '-'}`,
    ...s.traps.map((t) => `  possible trap on ${t.host}: ${t.count}× ${t.pattern}${t.evidence ? ` (${t.evidence})` : ''} — consider --exclude '${t.suggestedExclude}'`),
  ];
}
