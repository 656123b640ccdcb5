/**
 * The CLI's view of a running crawl: a live progress bar on a terminal (downloaded / queued /
 * failed, URIs/s, KB/s, elapsed), plain periodic lines when output is not a TTY, and the end
 * summary (hosts, status codes, MIME types, bytes). A pause says why on the line itself, the moment
 * it happens (a full disk: "paused: only 3.2 MiB free …"), on a terminal and in plain output.
 * What a quiet crawl waits for is said too: URIs waiting to be retried (the last try's outcome,
 * which try comes next, and when), and pages held back by a reached page limit, which the
 * queued count leaves out (they are not work left undone).
 */
import type { CrawlSnapshot, RetryWaitingRow, WorkerRow } from '../api/crawl-snapshot.ts';
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
        format: ' {bar} {percentage}% | {downloaded} done, {queued} queued, {failed} failed | {rate} URI/s {kbps} KB/s | {elapsed} | {state}{waits}',
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
      queued: s ? stillQueued(s) : 0,
      failed: s?.failed ?? 0,
      rate: (s?.urisPerSec ?? 0).toFixed(1),
      kbps: Math.round(s?.kbPerSec ?? 0),
      elapsed: formatElapsed(s?.elapsedMs ?? 0),
      state: s ? stateText(s) + (s.workers ? ` | ${shortWorkers(s.workers)}` : '') : 'starting',
      waits: s ? waitsText(s).map((w) => ` | ${w}`).join('') : '',
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
    // A change of state, or of how many wait for a retry or a higher page limit, is said at once.
    const key = `${state} ${s.retrying?.count ?? 0} ${s.heldByPageLimit ?? 0}`;
    if (now - this.lastPlain >= 5000 || key !== this.lastPlainState) {
      this.lastPlain = now;
      this.lastPlainState = key;
      this.io.stderr.write(
        `[${formatElapsed(s.elapsedMs)}] ${s.downloaded} done, ${stillQueued(s)} queued, ${s.failed} failed, ${s.urisPerSec.toFixed(1)} URI/s, ${Math.round(s.kbPerSec)} KB/s | ${state}${waitsText(s)
          .map((w) => ` | ${w}`)
          .join('')}\n`,
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

/** Of `queued`, those neither waiting for a retry nor held back by the page limit. */
function stillQueued(s: CrawlSnapshot): number {
  return Math.max(0, s.queued - (s.retrying?.count ?? 0) - (s.heldByPageLimit ?? 0));
}

/** How many wait for a retry: `12`, or `10000+` where the count stopped. */
function retryCount(s: CrawlSnapshot): string {
  return `${s.retrying?.count ?? 0}${s.retrying?.capped ? '+' : ''}`;
}

/** An outcome as the line shows it: `HTTP 503`, `TIMEOUT (-4)`. */
function outcomeText(r: RetryWaitingRow): string {
  return r.status < 0 ? `${r.outcome} (${r.status})` : r.outcome;
}

/**
 * What the crawl waits for, as the progress line says it: `2 waiting to retry: <url> TIMEOUT (-4),
 * try 4 of 4 in 0:38` (the soonest; "due now" once its time has come and it waits for its queue),
 * and `464 held back by the page limit`.
 */
export function waitsText(s: CrawlSnapshot): string[] {
  const out: string[] = [];
  const r = s.retrying;
  const first = r?.next[0];
  if (r && r.count > 0) {
    const when = first ? (first.nextTryInMs > 0 ? `in ${formatElapsed(first.nextTryInMs)}` : 'due now') : '';
    out.push(`${retryCount(s)} waiting to retry${first ? `: ${first.url} ${outcomeText(first)}, try ${first.nextTry} of ${first.maxTries} ${when}` : ''}`);
  }
  if (s.heldByPageLimit) out.push(`${s.heldByPageLimit} held back by the page limit`);
  return out;
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

/** The URIs line of the summary: what is left is split into what waits for a retry, what the page limit holds back, and what is still queued. */
function urisLine(s: CrawlSnapshot): string {
  const retrying = s.retrying?.count ?? 0;
  const held = s.heldByPageLimit ?? 0;
  const rest = stillQueued(s);
  return [
    `${s.downloaded} downloaded`,
    `${s.failed} failed`,
    ...(retrying > 0 ? [`${retryCount(s)} waiting to retry`] : []),
    ...(held > 0 ? [`${held} held back by the page limit`] : []),
    ...(rest > 0 || (retrying === 0 && held === 0) ? [`${rest} still queued`] : []),
    `${s.pages} HTML pages`,
    ...(s.rendered ? [`${s.rendered} rendered in a browser`] : []),
  ].join(', ');
}

/** The retries line: tries made again, and the URIs still waiting for one (tried again on resume). */
function retriesLines(s: CrawlSnapshot): string[] {
  const made = s.retries ?? 0;
  const r = s.retrying;
  if (made === 0 && !r?.count) return [];
  const first = r?.next[0];
  const waiting = r?.count
    ? `; ${retryCount(s)} URI${r.count === 1 && !r.capped ? '' : 's'} waiting to retry${first ? `, next ${first.url} ${outcomeText(first)}, try ${first.nextTry} of ${first.maxTries}` : ''}`
    : '';
  return [`  retries     ${made} ${made === 1 ? 'try' : 'tries'} again after a failed one${waiting}`];
}

export function formatSummary(s: CrawlSnapshot): string[] {
  const paused = s.pausedMs ? ` while running; paused ${formatElapsed(s.pausedMs)}` : '';
  return [
    `Crawl ${s.name} ${s.state}${s.finishReason ? ` (${s.finishReason})` : ''}${s.message ? `: ${s.message}` : ''}`,
    `  directory   ${s.dir}`,
    `  elapsed     ${formatElapsed(s.elapsedMs)}  (${s.avgUrisPerSec.toFixed(1)} URI/s, ${Math.round(s.avgKbPerSec)} KB/s on average${paused})`,
    `  URIs        ${urisLine(s)}`,
    ...retriesLines(s),
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
