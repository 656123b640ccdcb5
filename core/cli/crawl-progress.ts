/**
 * The CLI's view of a running crawl: a live progress bar on a terminal (downloaded / queued /
 * failed, URIs/s, KB/s, elapsed), plain periodic lines when output is not a TTY, and the end
 * summary (hosts, status codes, MIME types, bytes). A pause says why on the line itself, the moment
 * it happens (a full disk: "paused: only 3.2 MiB free …"), on a terminal and in plain output.
 */
import type { CrawlSnapshot, WorkerRow } from '../api/crawl-snapshot.ts';
import { formatBytes } from '../formats/byte-size.ts';
import type { CommandIo } from './robots-command.ts';
import { newProgressBar, type ProgressBar } from './progress-bar.ts';

export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h > 0 ? `${h}:` : ''}${String(m).padStart(h > 0 ? 2 : 1, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** A shared crawl's workers, one line each: name, host/pid, state, rate, leases, last heartbeat. */
export function formatWorkers(rows: readonly WorkerRow[]): string[] {
  const w = Math.max(6, ...rows.map((r) => r.name.length));
  const h = Math.max(4, ...rows.map((r) => `${r.host}/${r.pid}`.length));
  return [
    `  ${'worker'.padEnd(w)}  ${'host'.padEnd(h)}  ${'state'.padEnd(8)}  ${'URI/s'.padStart(6)}  ${'done'.padStart(7)}  ${'leases'.padStart(6)}  heartbeat`,
    ...rows.map(
      (r) =>
        `  ${r.name.padEnd(w)}  ${`${r.host}/${r.pid}`.padEnd(h)}  ${r.state.padEnd(8)}  ${r.urisPerSec.toFixed(1).padStart(6)}  ${String(r.downloaded).padStart(7)}  ${String(r.leases).padStart(6)}  ${
          r.heartbeatAgoMs === null ? '-' : `${(r.heartbeatAgoMs / 1000).toFixed(1)} s ago`
        }${r.alive ? '' : ' (lease expired)'}`,
    ),
  ];
}

export class CrawlProgress {
  private bar: ProgressBar | null = null;
  private io: CommandIo;
  private lastPlain = 0;
  /** What the plain line last said about the state, so a change is printed at once. */
  private lastPlainState = '';
  /** The bar's last values, to draw it again after a message line. */
  private last: { total: number; value: number; payload: Record<string, string | number> } = { total: 1, value: 0, payload: this.payload(null) };

  constructor(io: CommandIo, opts: { tty: boolean; enabled: boolean }) {
    this.io = io;
    if (opts.tty && opts.enabled) {
      this.bar = newProgressBar({
        format: ' {bar} {percentage}% | {downloaded} done, {queued} queued, {failed} failed | {rate} URI/s {kbps} KB/s | {elapsed} | {state}',
        barsize: 24,
        hideCursor: true,
        clearOnComplete: false,
        stopOnComplete: false,
        etaBuffer: 50,
        stream: process.stderr,
      });
      this.bar.start(this.last.total, this.last.value, this.last.payload);
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
      state: s ? stateText(s) + (s.workers ? ` | ${shortWorkers(s.workers)}` : '') : 'starting',
    };
  }

  update(s: CrawlSnapshot): void {
    const done = s.downloaded + s.failed;
    const total = Math.max(1, done + s.queued + s.inFlight);
    this.last = { total, value: done, payload: this.payload(s) };
    if (this.bar) {
      this.bar.setTotal(total);
      this.bar.update(done, this.last.payload);
      return;
    }
    const now = Date.now();
    const state = stateText(s);
    if (now - this.lastPlain >= 5000 || state !== this.lastPlainState) {
      this.lastPlain = now;
      this.lastPlainState = state;
      this.io.stderr.write(
        `[${formatElapsed(s.elapsedMs)}] ${s.downloaded} done, ${s.queued} queued, ${s.failed} failed, ${s.urisPerSec.toFixed(1)} URI/s, ${Math.round(s.kbPerSec)} KB/s | ${state}\n`,
      );
      if (s.workers?.length) this.io.stderr.write(formatWorkers(s.workers).join('\n') + '\n');
    }
  }

  message(line: string): void {
    if (this.bar) this.bar.stop();
    this.io.stderr.write(line + '\n');
    // Started again with the last values: started bare, the bar printed its raw template.
    if (this.bar) this.bar.start(this.last.total, this.last.value, this.last.payload);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}

/** Each worker in a few characters for the bar: `a 2.1/s 1L 0.4s`. */
function shortWorkers(rows: readonly WorkerRow[]): string {
  return rows
    .map((r) => `${r.name} ${r.urisPerSec.toFixed(1)}/s ${r.leases}L ${r.heartbeatAgoMs === null ? '-' : `${(r.heartbeatAgoMs / 1000).toFixed(1)}s`}${r.alive ? '' : ' dead'}`)
    .join(', ');
}

/** The state word, or, while pausing or paused, the reason (which starts "paused: …"). */
function stateText(s: CrawlSnapshot): string {
  if ((s.state === 'paused' || s.state === 'pausing') && s.message) return s.message;
  return s.state;
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
    ...(s.workers?.length ? ['  workers of the shared crawl', ...formatWorkers(s.workers).map((l) => `  ${l}`)] : []),
    ...s.traps.map((t) => `  possible trap on ${t.host}: ${t.count}× ${t.pattern}${t.evidence ? ` (${t.evidence})` : ''} — consider --exclude '${t.suggestedExclude}'`),
  ];
}
