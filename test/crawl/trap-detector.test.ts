/**
 * The trap detector judged like a classifier: real crawls (the real crawler, real HTTP servers on
 * port 0) of sites that look like real sites must raise nothing, and crawls of sites holding a
 * trap must flag it within a few hundred URLs of entering it, with evidence, samples and an exclude
 * that matches the trap's URLs and none of the site's other URLs. Unit tests pin the shapes, the
 * fingerprint and the rules on hand-fed observations.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nginxAvailable, startNginx } from '../../bench/bench-nginx.ts';
import { TrapDetector, CHAIN_MIN } from '../../core/crawl/trap-detector.ts';
import { distance, nearIdentical, textFingerprint } from '../../core/crawl/trap-fingerprint.ts';
import { repeatedKeyExclude, shapeExclude, shapeOf } from '../../core/crawl/trap-shape.ts';
import {
  crawlSite,
  RULES_OFF,
  startCalendarSite,
  startCatalogueSite,
  startDocsSite,
  startGrowingQuerySite,
  startLoopSite,
  startSessionSite,
  type TrapSite,
} from '../fixtures/trap-sites.ts';

describe('URL shapes', () => {
  it('generalise digits, drop query and matrix values, collapse repeated runs', () => {
    expect(shapeOf('http://h/cal/2026/11/')).toMatchObject({ host: 'h', shape: '/cal/N/N/', variable: true, repeats: 1 });
    expect(shapeOf('http://h/loop/loop/loop/')).toMatchObject({ shape: '/loop/', repeats: 3, variable: true });
    expect(shapeOf('http://h/loop/')).toMatchObject({ shape: '/loop/', repeats: 1, variable: false });
    expect(shapeOf('http://h/a/b/a/b/a/b/x.html')).toMatchObject({ shape: '/a/b/x.html', repeats: 3 });
    expect(shapeOf('http://h/r?page=3&from=1&from=2')).toMatchObject({ shape: '/r?from&page', duplicateKeys: 1, params: ['?from', '?page'] });
    expect(shapeOf('http://h/shop/x.html;jsessionid=AB12')).toMatchObject({ shape: '/shop/x.html', params: [';jsessionid'], variable: true });
    expect(shapeOf('http://h/about.html')!.variable).toBe(false);
  });

  it('are what the shapes were before the per-URI allocations were cut (values pinned from that code)', () => {
    const cases: [string, object][] = [
      ["http://h.test/", {"host":"h.test","shape":"/","params":[],"repeats":1,"duplicateKeys":0,"variable":false}],
      ["http://h.test/p/12.html", {"host":"h.test","shape":"/p/N.html","params":[],"repeats":1,"duplicateKeys":0,"variable":true}],
      ["http://h.test/a/b/a/b/a/b/c", {"host":"h.test","shape":"/a/b/c","params":[],"repeats":3,"duplicateKeys":0,"variable":true}],
      ["http://h.test/loop/loop/loop/", {"host":"h.test","shape":"/loop/","params":[],"repeats":3,"duplicateKeys":0,"variable":true}],
      ["http://h.test/x;jsessionid=1;b=2/y;A=3/z?b=1&a=2&b=3", {"host":"h.test","shape":"/x/y/z?a&b","params":["?a","?b",";a",";b",";jsessionid"],"repeats":1,"duplicateKeys":1,"variable":true}],
      ["http://h.test/cal/2026/11/?sid=5&sid=6", {"host":"h.test","shape":"/cal/N/N/?sid","params":["?sid"],"repeats":1,"duplicateKeys":1,"variable":true}],
      ["http://h.test/a//b//c", {"host":"h.test","shape":"/a//b//c","params":[],"repeats":1,"duplicateKeys":0,"variable":false}],
      ["https://h.test:8080/1/2/3/1/2/3/1/2/3?x", {"host":"h.test:8080","shape":"/N/N/N?x","params":["?x"],"repeats":3,"duplicateKeys":0,"variable":true}],
      ["http://h.test/a;=x/;;/b", {"host":"h.test","shape":"/a//b","params":[],"repeats":1,"duplicateKeys":0,"variable":false}],
      ["http://h.test/a/a/b/b/b/b/c/c", {"host":"h.test","shape":"/a/b/c","params":[],"repeats":4,"duplicateKeys":0,"variable":true}],
      ["http://h.test/x?a&a&a#f", {"host":"h.test","shape":"/x?a","params":["?a"],"repeats":1,"duplicateKeys":2,"variable":true}],
    ];
    for (const [url, shape] of cases) expect(shapeOf(url), url).toEqual(shape);
  });

  it('build excludes that match the trap and not the page it starts from', () => {
    const loop = new RegExp(shapeExclude('http://h:8/loop/loop/loop/'));
    expect(loop.test('http://h:8/loop/loop/')).toBe(true);
    expect(loop.test('http://h:8/loop/loop/loop/loop/')).toBe(true);
    expect(loop.test('http://h:8/loop/')).toBe(false);
    const cal = new RegExp(shapeExclude('http://h/cal/2031/4/'));
    expect(cal.test('http://h/cal/1999/12/')).toBe(true);
    expect(cal.test('http://h/cal/1999/12/detail.html')).toBe(false);
    expect(cal.test('http://h/calendar.html')).toBe(false);
    const grow = new RegExp(repeatedKeyExclude('http://h/r?page=4&from=1&from=2&from=3', 'from'));
    expect(grow.test('http://h/r?page=3&from=1&from=2')).toBe(true);
    expect(grow.test('http://h/r?page=2&from=1')).toBe(false);
    expect(grow.test('http://h/r?page=2&xfrom=1&from=2')).toBe(false);
  });
});

describe('text fingerprint', () => {
  it('is what the regex-based word split gave (values pinned from that code; letters by Unicode code point, digits out)', () => {
    const cases: [string, readonly [number, number] | null][] = [
      ['Lorem ipsum dolor sit amet, lorem IPSUM 2026', [145263683, 3522625266]],
      ['Ünïcödé wörds, ΑΒΓ δέλτα 𝐀𝐁c 123abc_def-ghi ǅx ʰmod ー日本語カナ', [951259020, 622135667]],
      ['Calendar November 2026: Monday 1, Tuesday 2', [588824774, 1053008930]],
      ['123 456 !!', null],
    ];
    for (const [text, fp] of cases) expect(textFingerprint(text), text).toEqual(fp);
  });

  it('is near for pages that differ in a month name and numbers, far for different text', () => {
    const month = (m: string, y: number) =>
      `Events in ${m} ${y} Mon Tue Wed Thu Fri Sat Sun ${[...Array(30).keys()].join(' ')} No events are planned for this month. Subscribe to the newsletter to hear about new events as they are announced. previous month next month home about`;
    const a = textFingerprint(month('November', 2026))!;
    expect(nearIdentical(a, textFingerprint(month('December', 2026)))).toBe(true);
    expect(nearIdentical(a, textFingerprint(month('March', 2041)))).toBe(true);
    const other = textFingerprint('The archive keeps a copy of each page as it was served, with its headers and links, for later replay.')!;
    expect(distance(a, other)).toBeGreaterThan(12);
    expect(textFingerprint('')).toBeNull();
    expect(nearIdentical(null, null)).toBe(false);
  });
});

/** `n` letter-only words that differ with `seed` (digits would be masked by the fingerprint). */
function letters(seed: number, n: number): string {
  let x = seed * 2654435761;
  return Array.from({ length: n }, () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return String.fromCharCode(97 + (x % 26), 97 + ((x >>> 8) % 26), 97 + ((x >>> 16) % 26));
  }).join(' ');
}

describe('trap detector rules', () => {
  const calText = 'Events Mon Tue Wed Thu Fri Sat Sun no events are planned for this month subscribe to the newsletter previous month next month';
  it('flags a near-identical chain, not a fan-out of distinct ids', () => {
    const d = new TrapDetector();
    // 3,000 items found on 60 list pages (hops 2), each different: a site.
    for (let i = 0; i < 3000; i++) d.observe({ url: `http://h/p/${i}.html`, via: `http://h/list/${i % 60}.html`, hops: 2, text: `item ${i} ${['red', 'blue', 'green', 'amber'][i % 4]} widget` });
    expect(d.warnings()).toEqual([]);
    let via = 'http://h/';
    for (let i = 0; i < CHAIN_MIN; i++) {
      const url = `http://h/cal/2026/${i + 1}/`;
      d.observe({ url, via, hops: i + 1, text: calText });
      via = url;
      if (i < CHAIN_MIN - 2) expect(d.warnings()).toEqual([]);
    }
    // The first month, found on the home page, is not fingerprinted (nothing of its kind yet), so
    // the second cannot be compared: 8 of the 9 chained months are near-identical to their parent.
    const [w] = d.warnings();
    expect(w).toMatchObject({ host: 'h', pattern: '/cal/N/N/', kind: 'near-identical-chain', count: CHAIN_MIN });
    expect(w!.evidence).toMatch(/chain of 10 URLs each found on the previous one, hops 1→10; 8 of 9 near-identical/);
    expect(w!.samples!.every((s) => s.startsWith('http://h/cal/'))).toBe(true);
    expect(w!.excludeCheck).toMatchObject({ trap: CHAIN_MIN, other: 0 });
  });

  it('flags a parameter that re-serves the same pages without end, not a tracking parameter with a few values', () => {
    const pages = ['a', 'b', 'c', 'd', 'e', 'f'];
    const d = new TrapDetector();
    // Every link tagged with one of three fixed values: the same pages, three times over. Not a trap.
    let n = 0;
    for (let round = 0; round < 3; round++) {
      for (const p of pages) {
        for (const ref of ['nav', 'footer', 'side']) d.observe({ url: `http://h/${p}.html?ref=${ref}${round ? `&r=${round}` : ''}`, via: `http://h/${pages[n++ % 6]}.html?ref=nav`, hops: 2 + round, text: `page ${p} ${letters(p.charCodeAt(0), 30)}` });
      }
    }
    expect(d.warnings().filter((w) => w.kind === 'session-id')).toEqual([]);
    // A fresh value on every link, found on pages that carry one: the same six pages without end.
    let via = 'http://h/';
    for (let i = 0; i < 60; i++) {
      const url = `http://h/${pages[i % 6]}.html?sid=s${String.fromCharCode(97 + (i % 26))}${i}`;
      d.observe({ url, via, hops: 1 + Math.floor(i / 6), text: `page ${pages[i % 6]} ${letters(pages[i % 6]!.charCodeAt(0), 30)}` });
      via = url;
    }
    const s = d.warnings().find((w) => w.kind === 'session-id');
    expect(s).toMatchObject({ pattern: '?sid', host: 'h' });
    expect(s!.membersWhenFlagged).toBeLessThanOrEqual(30);
    expect(new RegExp(s!.suggestedExclude).test('http://h/a.html?sid=zz9')).toBe(true);
    expect(new RegExp(s!.suggestedExclude).test('http://h/a.html?ref=nav')).toBe(false);
  });

  it('does not flag a chain of pages with different text (pagination, a manual read page by page)', () => {
    const d = new TrapDetector();
    let via = 'http://h/';
    for (let i = 1; i <= 200; i++) {
      const url = `http://h/blog/page/${i}/`;
      d.observe({ url, via, hops: i, text: `Posts, page ${i}: ${letters(i, 40)}` });
      via = url;
    }
    expect(d.warnings()).toEqual([]);
  });
});

describe('crawls of fixture sites', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-traps-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function withSite<T>(start: () => Promise<TrapSite>, fn: (s: TrapSite) => Promise<T>): Promise<T> {
    const site = await start();
    try {
      return await fn(site);
    } finally {
      await site.close();
    }
  }

  it('a documentation site (versioned stylesheets on every page, prev/next through the manual) raises nothing', async () => {
    await withSite(startDocsSite, async (site) => {
      const r = await crawlSite(site, path.join(dir, 'docs'));
      expect(r.finishReason).toBe('frontier-empty');
      expect(r.urls.length).toBeGreaterThanOrEqual(289);
      expect(r.traps).toEqual([]);
      expect(r.said).toEqual([]);
    });
  }, 120_000);

  it('a flat catalogue of 5,000 ids (list pages, related items, versioned images) raises nothing', async () => {
    await withSite(startCatalogueSite, async (site) => {
      const r = await crawlSite(site, path.join(dir, 'catalogue'), { concurrency: 8, perHost: 8 });
      expect(r.finishReason).toBe('frontier-empty');
      expect(r.urls.length).toBeGreaterThan(5100);
      expect(r.traps).toEqual([]);
    });
  }, 300_000);

  const DOCS = '/usr/share/doc/python3-doc/html';
  it.skipIf(!nginxAvailable() || !fs.existsSync(DOCS))("Debian's Python docs under nginx raise nothing (skipped without nginx and python3-doc)", async () => {
    const nginx = await startNginx(fs.realpathSync(DOCS));
    try {
      const r = await crawlSite(nginx, path.join(dir, 'python-docs'), { concurrency: 8, perHost: 8 });
      expect(r.finishReason).toBe('frontier-empty');
      expect(r.urls.length).toBeGreaterThan(500);
      expect(r.traps).toEqual([]);
      expect(r.said).toEqual([]);
    } finally {
      await nginx.close();
    }
  }, 300_000);

  const traps: [string, () => Promise<TrapSite>, string][] = [
    ['an endless calendar', startCalendarSite, 'near-identical-chain'],
    ['a relative-link path loop', startLoopSite, 'growing-url'],
    ['a session id on every link', startSessionSite, 'session-id'],
    ['an ever-growing query', startGrowingQuerySite, 'growing-url'],
  ];
  it.each(traps)('%s is flagged within a few hundred URLs, with an exclude that matches only the trap', async (name, start, kind) => {
    await withSite(start, async (site) => {
      const r = await crawlSite(site, path.join(dir, name.replace(/\W+/g, '-')), { ...RULES_OFF, limitUris: 400 });
      expect(r.finishReason).toBe('limit-uris');
      expect(r.traps.length, JSON.stringify(r.traps, null, 1)).toBe(1);
      const w = r.traps[0]!;
      expect(w.kind).toBe(kind);
      expect(w.membersWhenFlagged).toBeLessThanOrEqual(300);
      expect(w.evidence).toBeTruthy();
      expect(w.samples!.length).toBeGreaterThan(0);
      for (const s of w.samples!) expect(site.isTrap(s), s).toBe(true);
      // The exclude against every URL the crawl fetched: it takes in the trap and leaves the site.
      const re = new RegExp(w.suggestedExclude);
      const matched = r.urls.filter((u) => re.test(u));
      const trapUrls = r.urls.filter((u) => site.isTrap(u));
      expect(matched.filter((u) => !site.isTrap(u))).toEqual([]);
      expect(matched.length).toBeGreaterThanOrEqual(0.9 * trapUrls.length);
      expect(w.excludeCheck!.other).toBe(0);
      // Said once in the log, with the evidence as it stood then and the exclude.
      expect(r.said.length).toBe(1);
      expect(r.said[0]).toContain(` ${w.pattern} (`);
      expect(r.said[0]).toContain(`consider --exclude '${w.suggestedExclude}'`);
    });
  }, 120_000);

  it('under the default rules the calendar is still flagged (its chain reaches the hop limit)', async () => {
    await withSite(startCalendarSite, async (site) => {
      const r = await crawlSite(site, path.join(dir, 'calendar-defaults'));
      expect(r.finishReason).toBe('frontier-empty');
      expect(r.traps.map((t) => t.pattern)).toEqual(['/cal/N/N/']);
    });
  }, 120_000);
});
