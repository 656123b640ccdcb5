import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTroveError } from '../../core/errors.ts';
import { parseRobots, ROBOTS_MAX_BYTES } from '../../core/robots/parse-robots.ts';
import {
  deserializeRobotsState,
  failureSince,
  robotsStateFromFetch,
  robotsStateRefreshAt,
  robotsUrlFor,
  ROBOTS_MAX_REDIRECTS,
  serializeRobotsState,
  type RobotsFetchResult,
  type RobotsState,
} from '../../core/robots/robots-state.ts';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const opts = { ttlMs: DAY };

/**
 * What the crawler's robots prerequisite will do: GET, follow up to ROBOTS_MAX_REDIRECTS
 * redirects, report status + body or the network error.
 */
async function fetchRobots(url: string, fetchedAt: number, firstFailureAt?: number): Promise<RobotsFetchResult> {
  let target = url;
  try {
    for (let hop = 0; ; hop++) {
      const res = await request(target, { method: 'GET', headersTimeout: 5000, bodyTimeout: 5000 });
      const body = Buffer.from(await res.body.arrayBuffer());
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string' && hop < ROBOTS_MAX_REDIRECTS) {
        target = new URL(location, target).href;
        continue;
      }
      return { status: res.statusCode, body, fetchedAt, firstFailureAt };
    }
  } catch (err) {
    return { status: 0, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message, fetchedAt, firstFailureAt };
  }
}

function expectKind<K extends RobotsState['kind']>(s: RobotsState, kind: K): Extract<RobotsState, { kind: K }> {
  expect(s.kind).toBe(kind);
  return s as Extract<RobotsState, { kind: K }>;
}

describe('robotsStateFromFetch against a real local server', () => {
  let server: LocalServer;
  let closedOrigin: string;

  beforeAll(async () => {
    server = await startHttpServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const status = Number(url.searchParams.get('status') ?? 200);
      const hops = Number(url.searchParams.get('hops') ?? 0);
      if (url.pathname === '/redirect' && hops > 0) {
        res.writeHead(302, { location: `/redirect?hops=${hops - 1}` });
        res.end();
      } else if (url.pathname === '/redirect' || status === 200) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('User-agent: *\nDisallow: /private\nCrawl-delay: 7\nSitemap: http://x/s.xml\n');
      } else {
        res.writeHead(status);
        res.end('<html>error</html>');
      }
    });
    const closed = await startHttpServer(() => {});
    closedOrigin = closed.origin;
    await closed.close();
  });
  afterAll(async () => {
    await server.close();
  });

  it('200: parses the rules, valid for the TTL', async () => {
    const s = robotsStateFromFetch(await fetchRobots(`${server.origin}/robots.txt`, 1000), opts);
    const rules = expectKind(s, 'rules');
    expect(rules.expiresAt).toBe(1000 + DAY);
    expect(rules.robots.isAllowed('Trove', `${server.origin}/private/x`)).toBe(false);
    expect(rules.robots.isAllowed('Trove', `${server.origin}/public`)).toBe(true);
    expect(rules.robots.crawlDelay('Trove')).toBe(7);
    expect(robotsStateRefreshAt(s)).toBe(1000 + DAY);
  });

  it.each([404, 410, 401, 403])('%i: unavailable, all allowed (RFC 9309)', async (status) => {
    const s = robotsStateFromFetch(await fetchRobots(`${server.origin}/robots.txt?status=${status}`, 5000), opts);
    const allow = expectKind(s, 'allow-all');
    expect(allow.reason).toContain(`HTTP ${status}`);
    expect(allow.expiresAt).toBe(5000 + DAY);
  });

  it.each([500, 503, 429])('%i: all disallowed, retry in 5 min', async (status) => {
    const s = robotsStateFromFetch(await fetchRobots(`${server.origin}/robots.txt?status=${status}`, 5000), opts);
    const deny = expectKind(s, 'disallow-all');
    expect(deny.reason).toContain(`HTTP ${status}`);
    expect(deny.since).toBe(5000);
    expect(deny.retryAt).toBe(5000 + 5 * MIN);
  });

  it('network error (connection refused): all disallowed, reason names the error', async () => {
    const r = await fetchRobots(`${closedOrigin}/robots.txt`, 9000);
    expect(r.error).toBe('ECONNREFUSED');
    const deny = expectKind(robotsStateFromFetch(r, opts), 'disallow-all');
    expect(deny.reason).toContain('ECONNREFUSED');
    expect(deny.retryAt).toBe(9000 + 5 * MIN);
  });

  it(`follows up to ${ROBOTS_MAX_REDIRECTS} redirects; beyond that the file counts as unavailable`, async () => {
    const five = robotsStateFromFetch(await fetchRobots(`${server.origin}/redirect?hops=5`, 0), opts);
    expect(expectKind(five, 'rules').robots.isAllowed('x', 'http://h/private')).toBe(false);
    const six = await fetchRobots(`${server.origin}/redirect?hops=6`, 0);
    expect(six.status).toBe(302);
    expect(expectKind(robotsStateFromFetch(six, opts), 'allow-all').reason).toContain('redirect');
  });
});

describe('robotsStateFromFetch: outages', () => {
  const fail = (fetchedAt: number, firstFailureAt?: number): RobotsFetchResult => ({ status: 503, fetchedAt, firstFailureAt });

  it('retries back off with the length of the outage, capped at the TTL', () => {
    const t0 = 1_000_000;
    const first = expectKind(robotsStateFromFetch(fail(t0), opts), 'disallow-all');
    expect(first.retryAt - t0).toBe(5 * MIN);
    const waits: number[] = [];
    let state: RobotsState = first;
    let now = first.retryAt;
    for (let i = 0; i < 12; i++) {
      state = robotsStateFromFetch(fail(now, failureSince(state)), opts);
      const deny = expectKind(state, 'disallow-all');
      expect(deny.since).toBe(t0);
      waits.push(deny.retryAt - now);
      now = deny.retryAt;
    }
    expect(waits.slice(0, 4)).toEqual([5 * MIN, 10 * MIN, 20 * MIN, 40 * MIN]);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]!);
    expect(Math.max(...waits)).toBe(DAY);
  });

  it('after 30 days of continuous failure, robots.txt is treated as unavailable (allow all)', () => {
    const t0 = 0;
    const almost = robotsStateFromFetch(fail(30 * DAY - 1, t0), opts);
    expectKind(almost, 'disallow-all');
    const long = robotsStateFromFetch({ status: 0, error: 'ETIMEDOUT', fetchedAt: 30 * DAY, firstFailureAt: t0 }, opts);
    const allow = expectKind(long, 'allow-all');
    expect(allow.reason).toMatch(/ETIMEDOUT.*30 days.*long outage/);
    expect(allow.outageSince).toBe(t0);
    // The outage keeps its start across the allow-all state, so the next failure stays allow-all.
    expect(failureSince(long)).toBe(t0);
    expectKind(robotsStateFromFetch(fail(31 * DAY, failureSince(long)), opts), 'allow-all');
    // A success ends the outage.
    expect(failureSince(robotsStateFromFetch({ status: 200, body: Buffer.from(''), fetchedAt: 32 * DAY }, opts))).toBeUndefined();
  });

  it('longOutageMs and retryMs are configurable', () => {
    const s = robotsStateFromFetch(fail(2 * HOUR, 0), { ttlMs: DAY, retryMs: MIN, longOutageMs: HOUR });
    expectKind(s, 'allow-all');
    const d = expectKind(robotsStateFromFetch(fail(10, 10), { ttlMs: DAY, retryMs: MIN }), 'disallow-all');
    expect(d.retryAt).toBe(10 + MIN);
  });
});

describe('robotsUrlFor', () => {
  it('is the origin plus /robots.txt', () => {
    expect(robotsUrlFor('https://Example.COM:8443/a/b?c=d#e')).toBe('https://example.com:8443/robots.txt');
    expect(robotsUrlFor('http://example.com:80/x')).toBe('http://example.com/robots.txt');
    expect(robotsUrlFor('http://user:pw@[::1]:8080/')).toBe('http://[::1]:8080/robots.txt');
  });

  it.each(['not a url', 'mailto:a@b.c', 'file:///etc/passwd', ''])('throws ROBOTS_URL_INVALID for %j', (url) => {
    expect(() => robotsUrlFor(url)).toThrow(expect.objectContaining({ code: 'ROBOTS_URL_INVALID' }));
  });
});

describe('serializing robots state for the crawl database', () => {
  const states: RobotsState[] = [
    { kind: 'rules', robots: parseRobots('User-agent: *\nDisallow: /x\n'), expiresAt: 123 },
    { kind: 'allow-all', reason: 'robots.txt unavailable (HTTP 404): all allowed', expiresAt: 456 },
    { kind: 'allow-all', reason: 'long outage', expiresAt: 456, outageSince: 7 },
    { kind: 'disallow-all', reason: 'robots.txt server error (HTTP 503)', retryAt: 789, since: 100 },
  ];

  it('round-trips every kind; rules are re-parsed from the stored body', () => {
    for (const s of states) {
      const back = deserializeRobotsState(serializeRobotsState(s));
      if (s.kind === 'rules') {
        const rules = expectKind(back, 'rules');
        expect(rules.expiresAt).toBe(123);
        expect(rules.robots.match('a', 'http://h/x/1')).toEqual(s.robots.match('a', 'http://h/x/1'));
        expect(rules.robots.source.equals(s.robots.source)).toBe(true);
      } else {
        expect(back).toEqual(s);
      }
    }
  });

  it('keeps bodies that are not UTF-8 byte for byte, and the truncation of oversized ones', () => {
    const latin1 = Buffer.concat([Buffer.from('User-agent: *\nDisallow: /caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const json = serializeRobotsState({ kind: 'rules', robots: parseRobots(latin1), expiresAt: 1 });
    expect(JSON.parse(json)).toHaveProperty('bodyBase64');
    const back = expectKind(deserializeRobotsState(json), 'rules');
    expect(back.robots.source.equals(latin1)).toBe(true);
    expect(back.robots.isAllowed('x', 'http://h/caf%E9')).toBe(false);

    const big = `User-agent: *\nDisallow: /a\n${'#'.repeat(ROBOTS_MAX_BYTES)}\nDisallow: /b\n`;
    const bigBack = expectKind(deserializeRobotsState(serializeRobotsState({ kind: 'rules', robots: parseRobots(big), expiresAt: 1 })), 'rules');
    expect(bigBack.robots.truncated).toBe(true);
    expect(bigBack.robots.isAllowed('x', 'http://h/a')).toBe(false);
    expect(bigBack.robots.isAllowed('x', 'http://h/b')).toBe(true);
  });

  it('survives a real SQLite file, closed and reopened (resume without refetch)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'trove-robots-'));
    try {
      const file = path.join(dir, 'crawl.sqlite');
      const db = new Database(file);
      db.exec('CREATE TABLE robots (origin TEXT PRIMARY KEY, state TEXT NOT NULL)');
      const put = db.prepare('INSERT INTO robots (origin, state) VALUES (?, ?)');
      states.forEach((s, i) => put.run(`http://h${i}.example`, serializeRobotsState(s)));
      db.close();

      const again = new Database(file, { readonly: true });
      const rows = again.prepare('SELECT origin, state FROM robots ORDER BY origin').all() as Array<{ origin: string; state: string }>;
      again.close();
      const loaded = rows.map((r) => deserializeRobotsState(r.state));
      expect(loaded.map((s) => s.kind)).toEqual(['rules', 'allow-all', 'allow-all', 'disallow-all']);
      expect(expectKind(loaded[0]!, 'rules').robots.isAllowed('Trove', 'http://h0.example/x')).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['not JSON', '{oops'],
    ['an array', '[]'],
    ['an unknown version', '{"v":99,"kind":"allow-all","reason":"r","expiresAt":1}'],
    ['an unknown kind', '{"v":1,"kind":"maybe"}'],
    ['rules without a body', '{"v":1,"kind":"rules","expiresAt":1}'],
    ['a missing number', '{"v":1,"kind":"disallow-all","reason":"r","since":1}'],
    ['a reason that is not a string', '{"v":1,"kind":"allow-all","reason":5,"expiresAt":1}'],
  ])('rejects %s with ROBOTS_STATE_INVALID', (_what, json) => {
    let caught: unknown;
    try {
      deserializeRobotsState(json);
    } catch (err) {
      caught = err;
    }
    expect(isTroveError(caught, 'ROBOTS_STATE_INVALID')).toBe(true);
  });
});
