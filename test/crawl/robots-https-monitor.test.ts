/**
 * The monitor's robots column for an https host. Queues are keyed by host (http and https of a
 * host share one), robots state by origin (scheme included): the column once looked the state up
 * as http://host/ only, so every https host read "not fetched" though its robots.txt was fetched
 * and obeyed. A real TLS server on port 0 with a certificate made for the test (the fetcher does
 * not verify certificates, as archival crawlers do not) serves robots.txt and two pages.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { Outcome } from '../../core/api/outcome-codes.ts';
import { RobotsGate } from '../../core/crawl/robots-gate.ts';
import { makeSelfSignedCert } from '../fetch/self-signed-cert.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';

let server: https.Server;
let origin: string;
let run: CrawlRun;

beforeAll(async () => {
  const { key, cert } = makeSelfSignedCert();
  server = https.createServer({ key, cert }, (req, res) => {
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('User-agent: *\nDisallow: /private\n');
    } else if (req.url === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html><body><a href="/open">open</a> <a href="/private">private</a></body></html>');
    } else {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html><body>leaf</body></html>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  run = await runCrawl({ seeds: [`${origin}/`] });
}, 60_000);

afterAll(async () => {
  run?.cleanup();
  await new Promise((resolve) => server.close(resolve));
});

describe('an https host in the monitor', () => {
  it('shows the robots rules it fetched and obeyed, not "not fetched"', () => {
    expect(run.line(`${origin}/robots.txt`)?.status).toBe(200);
    expect(run.line(`${origin}/open`)?.status).toBe(200);
    expect(run.line(`${origin}/private`)?.status).toBe(Outcome.ROBOTS_PRECLUDED);
    const row = run.final.hosts.find((h) => h.queue === new URL(origin).host);
    expect(row, JSON.stringify(run.final.hosts)).toBeDefined();
    expect(row!.robots).toBe('rules (1 groups)');
  });
});

describe('RobotsGate.describeHost: one queue, two origins', () => {
  const gate = () => {
    const kept = new Map<string, { state: string; failures: number }>();
    const store = { get: (o: string) => kept.get(o) ?? null, set: (o: string, v: { state: string; failures: number }) => void kept.set(o, v) };
    return new RobotsGate(new Database(':memory:'), { ttlMs: 86_400_000, maxRetries: 0, custom: null, candidateAgents: [], masquerade: false }, store);
  };
  const rules = Buffer.from('User-agent: *\nDisallow: /x\n');

  it('says which origin of the host has which robots state', () => {
    const g = gate();
    expect(g.describeHost('h.test')).toBe('not fetched');
    g.record('https://h.test/robots.txt', { status: 200, body: rules }, 0);
    expect(g.describeHost('h.test')).toBe('rules (1 groups)');
    g.record('http://h.test/robots.txt', { status: 404 }, 0);
    expect(g.describeHost('h.test')).toMatch(/^https: rules \(1 groups\); http: (?!not fetched)/);
    g.record('http://other.test:8080/robots.txt', { status: 200, body: rules }, 0);
    expect(g.describeHost('other.test:8080')).toBe('rules (1 groups)');
  });
});
