/**
 * A crawl that looks idle says what it waits for (issue 33): a real loopback server answers 503
 * on one page and closes the connection on another, both are put back for a retry, and the
 * snapshot, the progress line and the end summary name them: how many wait, the last try's
 * outcome code with its name, which try comes next, and when. The crawl runs on an injected
 * clock (StartCrawlOptions.clock) that stands still, so the countdown is exact and nothing waits
 * for a real retry delay.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { Outcome } from '../../core/api/outcome-codes.ts';
import type { CrawlSnapshot } from '../../core/api/crawl-snapshot.ts';
import { CrawlProgress, formatSummary } from '../../core/cli/crawl-progress.ts';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';
import { pollUntil } from '../helpers/poll-until.ts';
import { FAST } from '../helpers/run-crawl.ts';

let site: LocalServer;
const hits: string[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  site = await startHttpServer((q: http.IncomingMessage, r: http.ServerResponse) => {
    hits.push(q.url!);
    if (q.url === '/') {
      r.writeHead(200, { 'Content-Type': 'text/html' });
      r.end('<a href="/busy">busy</a> <a href="/drop">drop</a> <a href="/ok">ok</a>');
    } else if (q.url === '/busy') {
      r.writeHead(503, { 'Content-Type': 'text/plain', 'Content-Length': '4' });
      r.end('busy');
    } else if (q.url === '/drop') {
      q.socket.destroy(); // the connection closes before any response
    } else if (q.url === '/ok') {
      r.writeHead(200, { 'Content-Type': 'text/html' });
      r.end('<p>ok</p>');
    } else {
      r.writeHead(404, { 'Content-Type': 'text/plain' });
      r.end('no');
    }
  });
});

afterAll(async () => {
  await site.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('a crawl waiting for retries says so', () => {
  it('snapshot, progress line and summary: N waiting to retry, with the outcome code and name, the try and the countdown', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-retry-wait-'));
    dirs.push(dir);
    // A day ahead of the real clock and standing still: every politeness time the chain sets on
    // the real clock has passed, and the retries (10 minutes on this clock) never come due.
    const T = Date.now() + 86_400_000;
    const crawl = await startCrawl({ dir, settings: { ...FAST, seeds: [`${site.origin}/`], maxRetries: 3, retryDelayS: 600 }, clock: () => T });
    let snap: CrawlSnapshot = crawl.snapshot();
    await pollUntil(
      'both failing URIs to wait for a retry, nothing in flight',
      () => {
        snap = crawl.snapshot();
        return snap.retrying?.count === 2 && snap.inFlight === 0 && snap.queued === 2;
      },
      { attempts: 400, everyMs: 25, seen: () => JSON.stringify({ ...snap, hosts: [], recent: [] }) },
    );

    expect(snap.state).toBe('running');
        expect(snap.retries).toBe(2);
    const [busy, drop] = [`${site.origin}/busy`, `${site.origin}/drop`];
    expect(snap.retrying!.next.map((r) => r.url).sort()).toEqual([busy, drop]);
    const byUrl = new Map(snap.retrying!.next.map((r) => [r.url, r]));
    expect(byUrl.get(busy)).toEqual({
      url: busy,
      queue: expect.any(String),
      status: 503,
      outcome: 'HTTP 503',
      nextTry: 2,
      maxTries: 4,
      nextTryAt: T + 600_000,
      nextTryInMs: 600_000,
    });
    expect(byUrl.get(drop)).toMatchObject({ status: Outcome.CONNECT_LOST, outcome: 'CONNECT_LOST', nextTry: 2, maxTries: 4, nextTryAt: T + 600_000, nextTryInMs: 600_000 });

    // The progress line (plain output) says it, with the countdown.
    const lines: string[] = [];
    const progress = new CrawlProgress({ stdout: { write: () => true }, stderr: { write: (c: string) => lines.push(c) } }, { tty: false, enabled: false });
    progress.update(snap);
    const first = snap.retrying!.next[0]!;
    const outcome = first.status < 0 ? `${first.outcome} (${first.status})` : first.outcome;
    expect(lines).toHaveLength(1);
    // The two retries are among the queued URIs, and nothing else is left: the line says 0 queued.
    expect(lines[0]).toContain(` ${snap.downloaded} done, 0 queued, 0 failed, `);
    expect(lines[0]).toContain(`| running | 2 waiting to retry: ${first.url} ${outcome}, try 2 of 4 in 10:00\n`);

    crawl.stop();
    const final = await crawl.finished();
    expect(final.finishReason).toBe('operator');
    expect(final.retrying).toMatchObject({ count: 2 });
    const summary = formatSummary(final);
    expect(summary).toContain(`  URIs        ${final.downloaded} downloaded, 0 failed, 2 waiting to retry, ${final.pages} HTML pages`);
    expect(summary).toContain(`  retries     2 tries again after a failed one; 2 URIs waiting to retry, next ${first.url} ${outcome}, try 2 of 4`);
    // The 503 was asked for once: its retry waits, it was not made (the client may send a request
    // again on a closed keep-alive connection, so /drop is not counted).
    expect(hits.filter((h) => h === '/busy')).toEqual(['/busy']);
  });
});
