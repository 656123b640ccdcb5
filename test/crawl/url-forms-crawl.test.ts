/**
 * The crawl thread parses a claimed URI's URL once and hands that parse to the scope recheck, the
 * robots gate, the fetcher and the trap detector (chain/crawl-uri.ts `claimedUrl`). This crawl of
 * a loopback site whose links are written in awkward forms checks that nothing they decide moved:
 * every expectation is computed here from the string functions each step used before (normalize,
 * canonicalize, fingerprint, queue key, scope decide, robots match, python-surt), never written
 * out by hand, and the WARC is read back by warcio.
 *
 * An IDN host and a default port cannot be fetched from a loopback-only test (no resolver, no
 * port 80), so those two links are out of scope: their rejections are checked, and the per-URI
 * helpers that read the one parse are checked against their string forms for every form below.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST } from '../helpers/run-crawl.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import type { CrawlSnapshot } from '../../core/api/crawl-snapshot.ts';
import { defaultSettings, type CrawlSettings } from '../../core/api/settings.ts';
import { Outcome } from '../../core/api/outcome-codes.ts';
import { normalizeUrl } from '../../core/scope/normalize-url.ts';
import { canonicalize } from '../../core/scope/canonicalize.ts';
import { fingerprint } from '../../core/scope/fingerprint.ts';
import { buildScope, scopeSettingsFrom } from '../../core/scope/decide-rules.ts';
import { surt } from '../../core/scope/surt.ts';
import { queueAssigner } from '../../core/frontier/queue-assignment.ts';
import { parseRobots } from '../../core/robots/parse-robots.ts';
import { robotsUrlFor, robotsUrlOf } from '../../core/robots/robots-state.ts';
import { paramValue, shapeOf } from '../../core/crawl/trap-shape.ts';
import { indexFile } from '../../core/archive/cdxj-index.ts';
import { createCaptureIndex } from '../../core/archive/capture-index.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';
import { readWarcDir, type ReadRecord } from '../helpers/read-warcs.ts';

const ROBOTS = 'User-agent: *\nDisallow: /private/\n';

/** The links on the seed page, as written (PORT is the server's). */
function awkwardLinks(port: number): string[] {
  return [
    `HTTP://127.0.0.1:${port}/Upper/Case.html`, // uppercase scheme, path case kept
    `http://LOCALHOST:${port}/host-case.html`, // uppercase host (another host, taken in by --include)
    `http://127.0.0.1:${port}/a/./b/../dots.html`, // dot segments
    `/a/b/c/../../%2e%2e/dots2.html`, // relative, with an escaped dot segment
    `http://2130706433:${port}/decimal.html`, // IPv4 as one decimal number
    `/q.html?a=b+c&d=e%20f&g=h i`, // query with + and %20 (and a raw space)
    `/frag.html#section-2`, // fragment
    `/pct/%7euser/caf%C3%A9.html`, // percent-escapes, lowercase hex kept as written
    `/pct/ünï.html`, // raw non-ASCII path
    `/sess.html;jsessionid=0123456789ABCDEF?x=1`, // a session id canonicalization strips
    `/%70rivate/hidden.html`, // robots.txt forbids /private/ (RFC 9309 decodes %70)
    `http://BÜCHER.localhost:${port}/idn.html`, // IDN host: out of scope
    `http://127.0.0.1:80/default-port.html`, // default port: another origin, out of scope
  ];
}

function page(body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`;
}

interface Seen {
  host: string;
  target: string;
}

describe('a crawl of links in awkward URL forms', () => {
  let server: LocalServer;
  let origin: string;
  let seed: string;
  let settings: CrawlSettings;
  let dir: string;
  let final: CrawlSnapshot;
  let records: ReadRecord[];
  let log: { status: number; url: string; hops: string; via: string }[];
  let rejected: { rule: string; url: string }[];
  const requests: Seen[] = [];

  beforeAll(async () => {
    server = await startHttpServer((req, res) => {
      requests.push({ host: req.headers.host ?? '', target: req.url ?? '' });
      if (req.url === '/robots.txt') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(ROBOTS);
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      if (req.url === '/') res.end(page(awkwardLinks(server.port).map((h) => `<a href="${h.replaceAll('&', '&amp;')}">x</a>`).join('\n')));
      else res.end(page(`<p>leaf ${req.url}</p>`)); // bodies differ: no revisits
    });
    origin = server.origin;
    seed = `${origin}/`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-url-forms-'));
    const given: Partial<CrawlSettings> = {
      ...FAST,
      seeds: [seed],
      include: [`^http://localhost:${server.port}/host-case\\.html$`],
    };
    settings = { ...defaultSettings(), ...given };
    const crawl = await startCrawl({ dir, settings: given });
    final = await crawl.finished();
    records = await readWarcDir(path.join(dir, 'warcs'));
    log = fs
      .readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const f = line.split(/ +/);
        return { status: Number(f[1]), url: f[3]!, hops: f[4]!, via: f[5]! };
      });
    rejected = fs
      .readFileSync(path.join(dir, 'logs', 'scope.log'), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const f = line.split(' ');
        return { rule: f[1]!, url: f[2]! };
      });
  }, 60_000);

  afterAll(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Each link as the existing string functions see it: normalized, and the scope's decision on it. */
  function expected() {
    const scope = buildScope(scopeSettingsFrom(settings), settings.seeds);
    const robots = parseRobots(ROBOTS);
    return awkwardLinks(server.port).map((raw) => {
      const url = normalizeUrl(raw, seed);
      const decision = scope.decide({ url, hopsPath: 'L', via: seed, seed: false });
      const sameOrigin = new URL(url).origin === origin;
      const allowed = !sameOrigin || robots.match('Trove', url).allowed;
      return { raw, url, decision, allowed };
    });
  }

  it('finishes with an empty frontier', () => {
    expect(final.state).toBe('finished');
    expect(final.finishReason).toBe('frontier-empty');
  });

  it('makes the scope decisions the string functions make, with the same URLs', () => {
    const links = expected();
    const accepted = links.filter((l) => l.decision.decision === 'ACCEPT');
    const out = links.filter((l) => l.decision.decision === 'REJECT');
    expect(out.map((l) => l.raw)).toEqual([`http://BÜCHER.localhost:${server.port}/idn.html`, 'http://127.0.0.1:80/default-port.html']);
    expect(rejected.map((r) => r.url).sort()).toEqual(out.map((l) => l.url).sort());
    for (const l of out) expect(rejected.find((r) => r.url === l.url)?.rule).toBe(l.decision.rule);
    // Every accepted link reached the crawl log once, found on the seed by an L hop.
    for (const l of accepted) {
      const lines = log.filter((e) => e.url === l.url);
      expect(lines, l.raw).toHaveLength(1);
      expect(lines[0]!.hops).toBe('L');
      expect(lines[0]!.via).toBe(seed);
    }
  });

  it('ends each URI as robots.txt and the fetch decide it', () => {
    for (const l of expected().filter((x) => x.decision.decision === 'ACCEPT')) {
      const status = log.find((e) => e.url === l.url)!.status;
      expect(status, l.raw).toBe(l.allowed ? 200 : Outcome.ROBOTS_PRECLUDED);
    }
    // The escaped robots case is the one precluded.
    expect(expected().filter((l) => !l.allowed).map((l) => l.raw)).toEqual(['/%70rivate/hidden.html']);
  });

  it('keeps the frontier rows the string functions give: URL, fingerprint of the canonical form, queue', () => {
    const db = openDatabase(path.join(dir, 'crawl.sqlite'), { readonly: true });
    try {
      db.defaultSafeIntegers(true);
      const rows = db.prepare('SELECT u.url, u.fingerprint, q.key FROM uris u JOIN queues q ON q.id = u.queue_id').all() as { url: string; fingerprint: bigint; key: string }[];
      const key = queueAssigner(settings.queuePolicy);
      for (const l of expected().filter((x) => x.decision.decision === 'ACCEPT')) {
        const row = rows.find((r) => r.url === l.url);
        expect(row, l.raw).toBeDefined();
        expect(row!.fingerprint).toBe(BigInt.asIntN(64, fingerprint(canonicalize(l.url))));
        expect(row!.key).toBe(key(l.url));
      }
      // robots.txt of each fetched origin, and nothing of the rejected ones.
      const robotsUrls = rows.filter((r) => r.url.endsWith('/robots.txt')).map((r) => r.url).sort();
      expect(robotsUrls).toEqual([robotsUrlFor(seed), robotsUrlFor(`http://localhost:${server.port}/`)].sort());
    } finally {
      db.close();
    }
  });

  it('sends each request to the host and target the URL names', () => {
    const want = expected()
      .filter((x) => x.decision.decision === 'ACCEPT' && x.allowed)
      .map((l) => l.url);
    // Besides the links: the seed, each origin's robots.txt, and the favicon the crawl infers for a page.
    want.push(seed, robotsUrlFor(seed), robotsUrlFor(`http://localhost:${server.port}/`), new URL('/favicon.ico', seed).href);
    const asSent = (url: string) => {
      const u = new URL(url);
      return `${u.host} ${u.pathname}${u.search}`;
    };
    expect(requests.map((r) => `${r.host} ${r.target}`).sort()).toEqual(want.map(asSent).sort());
  });

  it('writes WARC records (read by warcio) and index rows under the same URLs and SURT keys', async () => {
    const fetched = expected().filter((x) => x.decision.decision === 'ACCEPT' && x.allowed);
    for (const l of fetched) {
      const types = records.filter((r) => r.targetUri === l.url).map((r) => r.type).sort();
      expect(types, l.raw).toEqual(['metadata', 'request', 'response']);
    }
    const db = openDatabase(path.join(dir, 'crawl.sqlite'), { readonly: true });
    const rows = (() => {
      try {
        return createCaptureIndex(db).cdxjRows(0, 10_000);
      } finally {
        db.close();
      }
    })();
    for (const l of fetched) {
      const mine = rows.filter((r) => r.targetUri === l.url);
      expect(mine.map((r) => r.recordType).sort(), l.raw).toEqual(['metadata', 'response']);
      for (const r of mine) expect(r.urlkey, l.raw).toBe(surt(l.url));
    }
    // An importer's CDXJ of the same files (the WARC read back, keyed from its own target URIs) agrees.
    const imported: { urlkey: string; url: string }[] = [];
    const warcs = path.join(dir, 'warcs');
    for (const f of fs.readdirSync(warcs)) for await (const e of indexFile(path.join(warcs, f))) imported.push(e);
    for (const r of rows.filter((x) => x.recordType === 'response')) {
      expect(imported.find((e) => e.url === r.targetUri)?.urlkey, r.targetUri!).toBe(r.urlkey);
    }
  });

  it('gives the robots.txt URL, trap shape and param values from the one parse that the string forms give', () => {
    const forms = awkwardLinks(server.port).map((raw) => normalizeUrl(raw, seed));
    forms.push('http://127.0.0.1:8080/cal/2026/11/?sid=1&sid=2', 'https://EXAMPLE.com:443/loop/loop/;jsessionid=x');
    for (const url of forms) {
      const parsed = new URL(url);
      const before = parsed.href;
      expect(robotsUrlOf(parsed, url), url).toBe(robotsUrlFor(url));
      // The gate's origin is the robots.txt URL without its path: what a parse of it gives.
      expect(robotsUrlOf(parsed, url).slice(0, -'/robots.txt'.length), url).toBe(new URL(robotsUrlFor(url)).origin);
      expect(shapeOf(url, parsed), url).toEqual(shapeOf(url));
      for (const param of ['?sid', '?a', ';jsessionid']) expect(paramValue(url, param, parsed), `${url} ${param}`).toBe(paramValue(url, param));
      expect(parsed.href, url).toBe(before); // the parse is read, never changed
    }
  });
});
