/**
 * Scope rejections through a real crawl: each rejected link is counted under the rule that
 * decided it in the snapshot (`scopeRejections`) and listed in logs/scope.log with that rule,
 * the URL, its hops path, the page it was found on and the reason.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startPacedSite, type PacedRoute, type PacedSite } from '../fixtures/paced-site.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';

const page = (body: (q: http.IncomingMessage) => string): PacedRoute => (q, r) => {
  const b = Buffer.from(html('t', body(q)));
  r.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': String(b.length) });
  r.end(b);
};
const other = (q: http.IncomingMessage) => `http://${q.headers.host!.replace('127.0.0.1', 'localhost')}`;

let site: PacedSite;
let run: CrawlRun;

beforeAll(async () => {
  site = await startPacedSite({
    pages: 0,
    robots: 'User-agent: *\nAllow: /\n',
    routes: {
      '/': page((q) => `<a href="/d/1.html">deep</a> <a href="/skip/me.html">excluded</a> <a href="/x/x/x/x.html">repeats</a>
        <a href="${other(q)}/offsite.html">off-site link</a> <img src="${other(q)}/cdn.png"> <a href="/ok.html">ok</a>`),
      '/d/1.html': page(() => '<a href="/d/2.html">2</a>'),
      '/d/2.html': page(() => '<a href="/d/3.html">3</a> <a href="/skip/again.html">excluded</a>'),
      '/ok.html': page(() => 'fine'),
    },
  });
  run = await runCrawl({ seeds: [site.origin + '/'], maxHops: 2, exclude: ['/skip/'], maxPathRepeats: 2 });
}, 30_000);

afterAll(async () => {
  await site.close();
  run.cleanup();
});

/** scope.log: `time rule url hops via reason…` */
const entries = () =>
  run.scopeLog.map((l) => {
    const [time, rule, url, hops, via, ...reason] = l.split(' ');
    return { time: time!, rule: rule!, url: url!, hops: hops!, via: via!, reason: reason.join(' ') };
  });

describe('scope rejections', () => {
  it('fetches what is in scope (and the off-site embed, a transclusion) and nothing rejected', () => {
    expect(run.line(site.origin + '/ok.html')?.status).toBe(200);
    expect(run.line(site.origin + '/d/2.html')?.status).toBe(200);
    expect(site.requests.some((r) => r.path === '/cdn.png' && r.host.startsWith('localhost'))).toBe(true);
    for (const p of ['/d/3.html', '/skip/me.html', '/skip/again.html', '/x/x/x/x.html', '/offsite.html']) {
      expect(site.requests.some((r) => r.path === p), p).toBe(false);
    }
  });

  it('logs each rejection in scope.log with the deciding rule, hops path, via and reason', () => {
    const byUrl = new Map(entries().map((e) => [e.url.replace(/^http:\/\/[^/]+/, ''), e]));
    expect(byUrl.get('/d/3.html')).toMatchObject({ rule: 'max-hops', hops: 'LLL', via: site.origin + '/d/2.html' });
    expect(byUrl.get('/skip/me.html')).toMatchObject({ rule: 'exclude-regex', hops: 'L', via: site.origin + '/' });
    expect(byUrl.get('/skip/again.html')?.rule).toBe('exclude-regex');
    expect(byUrl.get('/x/x/x/x.html')?.rule).toBe('path-repeats');
    // Nothing accepted it: named by the scope that did not take it, never reject-all.
    expect(byUrl.get('/offsite.html')).toMatchObject({ rule: 'other-host', hops: 'L' });
    expect(byUrl.get('/offsite.html')?.reason).toMatch(/^REJECT: other host localhost:\d+ \(prefix scope of seed http:\/\/127\.0\.0\.1:\d+\/\)$/);
    expect(entries().some((e) => e.rule === 'reject-all')).toBe(false);
    for (const e of entries()) {
      expect(Number.isNaN(Date.parse(e.time))).toBe(false);
      expect(e.reason.length).toBeGreaterThan(0);
    }
  });

  it('counts rejections per rule in the snapshot, matching scope.log line for line', () => {
    const fromLog: Record<string, number> = {};
    for (const e of entries()) fromLog[e.rule] = (fromLog[e.rule] ?? 0) + 1;
    expect(run.final.scopeRejections).toEqual(fromLog);
    expect(run.final.scopeRejections['reject-all']).toBeUndefined();
    expect(run.final.scopeRejections['exclude-regex']).toBe(2);
    expect(run.final.scopeRejections['max-hops']).toBeGreaterThanOrEqual(1);
  });
});
