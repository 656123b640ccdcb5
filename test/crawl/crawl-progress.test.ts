/**
 * The CLI progress line says why a crawl paused, the moment it pauses: in plain output (not a
 * terminal) a changed state is printed at once, not at the next 5-second line; on a terminal the
 * bar carries the reason, and printing a message line (e.g. after Ctrl-C) redraws the bar with
 * its values instead of its raw `{downloaded} done…` template.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CrawlSnapshot, WorkerRow } from '../../core/api/crawl-snapshot.ts';
import { CrawlProgress, formatSummary, formatWorkers, waitsText } from '../../core/cli/crawl-progress.ts';

function snap(over: Partial<CrawlSnapshot>): CrawlSnapshot {
  return {
    name: 't', dir: '/x', state: 'running', finishReason: null, message: null, startedAt: 0, elapsedMs: 5000,
    downloaded: 9, failed: 0, queued: 51, inFlight: 0, seen: 60, pages: 9, bytes: 0, novelBytes: 0, duplicateBytes: 0, warcBytes: 0,
    urisPerSec: 1, kbPerSec: 2, avgUrisPerSec: 1, avgKbPerSec: 2, statusCodes: {}, mimeTypes: {}, scopeRejections: {},
    hosts: [], recent: [], traps: [], warcFiles: [],
    ...over,
  };
}

const REASON = 'paused: only 3.2 MiB free on the disk holding /x/warcs; free some disk space and the crawl resumes by itself';

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('crawl progress', () => {
  it('plain output: a pause is printed at once, with its reason', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const lines: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (c: string) => lines.push(c) } };
    const p = new CrawlProgress(io, { tty: false, enabled: false });
    p.update(snap({}));
    expect(lines).toEqual(['[0:05] 9 done, 51 queued, 0 failed, 1.0 URI/s, 2 KB/s | running\n']);
    vi.advanceTimersByTime(100); // well inside the 5 s between routine lines
    p.update(snap({ state: 'pausing', message: REASON }));
    expect(lines[1]).toBe(`[0:05] 9 done, 51 queued, 0 failed, 1.0 URI/s, 2 KB/s | ${REASON}\n`);
    p.update(snap({ state: 'paused', message: REASON }));
    expect(lines).toHaveLength(2); // same words: not repeated
    p.update(snap({ state: 'running' }));
    expect(lines[2]).toMatch(/\| running\n$/);
  });

  it('terminal: the bar shows the reason, and a message line never leaves the raw template', () => {
    const out: string[] = [];
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
      out.push(String(c));
      return true;
    });
    try {
      const lines: string[] = [];
      const io = { stdout: { write: () => true }, stderr: { write: (c: string) => (lines.push(c), process.stderr.write(c)) } };
      const p = new CrawlProgress(io, { tty: true, enabled: true });
      p.update(snap({ state: 'paused', message: REASON }));
      p.message('trove: stopping after in-flight fetches (Ctrl-C again to stop now)…');
      p.stop();
      const drawn = out.join('');
      expect(drawn).toContain(REASON);
      expect(drawn).not.toMatch(/\{(downloaded|queued|failed|rate|kbps|elapsed|state)\}/);
      expect(lines).toEqual(['trove: stopping after in-flight fetches (Ctrl-C again to stop now)…\n']);
    } finally {
      delete (process.stderr as { isTTY?: boolean }).isTTY;
    }
  });

  it('says what the crawl waits for: retries (due now once their time has come) and pages held back, apart from the queued count', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const retrying = {
      count: 2,
      next: [{ url: 'http://a.test/slow', queue: 'a.test', status: -4, outcome: 'TIMEOUT', nextTry: 4, maxTries: 4, nextTryAt: 1_038_000, nextTryInMs: 38_000 }],
    };
    expect(waitsText(snap({ queued: 10, retrying, heldByPageLimit: 5 }))).toEqual(['2 waiting to retry: http://a.test/slow TIMEOUT (-4), try 4 of 4 in 0:38', '5 held back by the page limit']);
    expect(waitsText(snap({ retrying: { ...retrying, next: [{ ...retrying.next[0]!, nextTryInMs: 0 }] } }))[0]).toMatch(/try 4 of 4 due now$/);
    expect(waitsText(snap({}))).toEqual([]);
    const lines: string[] = [];
    const p = new CrawlProgress({ stdout: { write: () => true }, stderr: { write: (c: string) => lines.push(c) } }, { tty: false, enabled: false });
    p.update(snap({ queued: 10, retrying, heldByPageLimit: 5 }));
    expect(lines[0]).toBe('[0:05] 9 done, 3 queued, 0 failed, 1.0 URI/s, 2 KB/s | running | 2 waiting to retry: http://a.test/slow TIMEOUT (-4), try 4 of 4 in 0:38 | 5 held back by the page limit\n');
    // A new count is said at once, not at the next 5-second line.
    p.update(snap({ queued: 9, retrying: { ...retrying, count: 1 }, heldByPageLimit: 5 }));
    expect(lines[1]).toContain('| 1 waiting to retry');
    expect(formatSummary(snap({ queued: 10, retrying, heldByPageLimit: 5, retries: 7 })).slice(3, 5)).toEqual([
      '  URIs        9 downloaded, 0 failed, 2 waiting to retry, 5 held back by the page limit, 3 still queued, 9 HTML pages',
      '  retries     7 tries again after a failed one; 2 URIs waiting to retry, next http://a.test/slow TIMEOUT (-4), try 4 of 4',
    ]);
    expect(formatSummary(snap({ queued: 51 }))[3]).toBe('  URIs        9 downloaded, 0 failed, 51 still queued, 9 HTML pages');
    // Where the crawl stopped counting them: at least.
    expect(waitsText(snap({ queued: 20_000, retrying: { ...retrying, count: 10_000, capped: true } }))[0]).toMatch(/^10000\+ waiting to retry: /);
  });

  it('a shared crawl: every worker on a line of its own (host, rate, leases, heartbeat), on the plain lines, the bar and the summary', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const workers: WorkerRow[] = [
      { name: 'a', host: 'box1', pid: 11, state: 'running', urisPerSec: 2.25, downloaded: 40, leases: 2, heartbeatAgoMs: 400, alive: true },
      { name: 'worker-b', host: 'box2', pid: 7, state: 'paused', urisPerSec: 0, downloaded: 3, leases: 0, heartbeatAgoMs: 31_000, alive: false },
    ];
    expect(formatWorkers(workers)).toEqual([
      '  worker    host     state      URI/s     done  leases  heartbeat',
      '  a         box1/11  running      2.3       40       2  0.4 s ago',
      '  worker-b  box2/7   paused       0.0        3       0  31.0 s ago (lease expired)',
    ]);
    const lines: string[] = [];
    const p = new CrawlProgress({ stdout: { write: () => true }, stderr: { write: (c: string) => lines.push(c) } }, { tty: false, enabled: false });
    p.update(snap({ workers }));
    expect(lines.join('')).toContain(formatWorkers(workers).join('\n'));
    expect(formatSummary(snap({ workers })).slice(-4)).toEqual(['  workers of the shared crawl', ...formatWorkers(workers).map((l) => `  ${l}`)]);
    expect(formatSummary(snap({}))).not.toContain('  workers of the shared crawl');
  });
});
