/**
 * The Monitor end to end in real Chromium, against a real crawl (worker thread, SQLite, WARC) of
 * a loopback site built to have a crawler trap: an endless events calendar on a host of its own
 * (each month linking the next and the previous, near-identical: a chain the trap detector
 * flags), 400 articles that fill the site's queue, and links the scope turns away. It walks what
 * an archivist used to Heritrix's console looks for: the crawl.log and scope.log tail with
 * filters (read from the files, so still there after a reload), a host's queue, rejections by
 * rule, progress against a page limit with an ETA, a trap exclusion confirmed after a preview
 * that counts what it matches (and drops what is queued), any other pattern typed in the
 * Monitor's exclusion dialog (its preview refreshed while open, applied live without a restart,
 * the drops in scope.log), a limit finish that is not an error,
 * and a resume that raises the limit. Screenshots at 1280×800 and 1024×700 go to test-artifacts/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';
import { ARTIFACTS, CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE, openApp, rendererDir, serveStatic, tempLibrary, type Harness, type StaticServer } from './harness.ts';
import { expectNothingCutOff } from './layout-checks.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

const ARTICLES = 400;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

type Site = LocalServer & { requests: string[] };

const html = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

/** A server that records every path it is asked for and answers after 5 ms. */
async function recordingServer(route: (p: string) => { status: number; body: string }): Promise<Site> {
  const requests: string[] = [];
  const server = await startHttpServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(p);
    setTimeout(() => {
      const r = route(p);
      res.writeHead(r.status, { 'content-type': 'text/html' }).end(r.body);
    }, 5);
  });
  return Object.assign(server, { requests });
}

/**
 * The events calendar, on a host of its own (as events.example.org often is): an endless month
 * view, `/calendar/2026/11/` linking the previous and the next month forever, every month empty
 * and near-identical. A real trap: each month is found on the one before it (a chain in both
 * directions), which is what the trap detector flags; a fan-out of ids from one page is not.
 */
function startEventsHost(): Promise<Site> {
  return recordingServer((p) => {
    const m = /^\/calendar\/(\d+)\/(\d+)\/$/.exec(p);
    const y = Number(m?.[1]);
    const mo = Number(m?.[2]);
    if (!m || mo < 1 || mo > 12) return { status: 404, body: html('Not found', '') };
    const prev = mo === 1 ? `/calendar/${y - 1}/12/` : `/calendar/${y}/${mo - 1}/`;
    const next = mo === 12 ? `/calendar/${y + 1}/1/` : `/calendar/${y}/${mo + 1}/`;
    const days = Array.from({ length: 30 }, (_, d) => `<td>${d + 1}</td>`).join('');
    return {
      status: 200,
      body: html(
        `Events in ${MONTHS[mo - 1]} ${y}`,
        `<nav><a href="/calendar/2026/11/">this month</a></nav><table><tr><th>Mon</th><th>Tue</th><th>Wed</th><th>Thu</th><th>Fri</th><th>Sat</th><th>Sun</th></tr><tr>${days}</tr></table><p>No events are planned for this month. Subscribe to the newsletter to hear about new events as they are announced, or browse the programme of talks, walks and workshops held by the society.</p><a href="${prev}">previous month</a> <a href="${next}">next month</a>`,
      ),
    };
  });
}

/**
 * The site: `/` links the events calendar first, then the articles (a fan-out of one shape, which
 * fills the site's queue and is not a trap), and a link the scope turns away. Articles link home
 * and a broken link.
 */
function startSite(eventsOrigin: string): Promise<Site> {
  return recordingServer((p) => {
    if (p === '/') {
      const arts = Array.from({ length: ARTICLES }, (_, i) => `<a href="/articles/a${i + 1}.html">article ${i + 1}</a>`).join(' ');
      return { status: 200, body: html('Trap site', `<a href="${eventsOrigin}/calendar/2026/11/">events</a><hr>${arts}<a href="http://elsewhere.invalid/">away</a>`) };
    }
    if (/^\/articles\/a\d+\.html$/.test(p)) return { status: 200, body: html(`Article ${p.slice(11, -5)}`, '<a href="/">home</a> <a href="/missing.html">broken</a>') };
    return { status: 404, body: html('Not found', '') };
  });
}

describe.skipIf(!chromium)('the Monitor in Chromium', () => {
  let browser: Browser;
  let server: StaticServer;
  let site: Site;
  let events: Site;
  let app: Harness;
  let page: Page;
  let libraryDir: string;
  let crawlId = '';

  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false });
  const byTestId = (id: string) => page.getByTestId(id);
  const state = () => byTestId('crawl-state').getAttribute('data-state');
  const finishReason = async () => ((await byTestId('finish-reason').count()) > 0 ? await byTestId('finish-reason').textContent() : '');
  /** The count on the Outcomes bar of one status code (0 when there is none). */
  const outcome = async (code: number) => {
    const bar = byTestId('status-codes').locator(`li[title="${code}"] .count`);
    return (await bar.count()) === 0 ? 0 : Number((await bar.textContent())!.replace(/,/g, ''));
  };
  /** The pattern excluded from the Monitor (its articles are not all fetched). */
  let excluded: RegExp | null = null;
  const num = async (id: string) => Number((await byTestId(id).locator('.value').textContent())!.replace(/,/g, ''));

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const [dir, e] = await Promise.all([rendererDir(), startEventsHost()]);
    events = e;
    site = await startSite(events.origin);
    server = await serveStatic(dir);
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
    libraryDir = tempLibrary();
    app = await openApp({ browser, origin: server.origin, libraryDir, viewport: { width: 1280, height: 800 } });
    page = app.page;
    page.on('pageerror', (err) => console.error('[page error]', err));
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.close();
    await site?.close();
    await events?.close();
    if (libraryDir) fs.rmSync(libraryDir, { recursive: true, force: true });
  });

  it('starts a crawl with a page limit and shows progress against it, the log tail and a host queue', async () => {
    const started = await app.service.handlers['crawl.start']({
      name: 'Trap site',
      settings: {
        seeds: [`${site.origin}/`],
        // The events host is part of the site; the hop limit (20 by default, as Heritrix's) would
        // end the calendar 20 months each way, so it is opened: only the exclusion stops the trap.
        include: [`^${events.origin.replace(/[.]/g, '\\.')}/`],
        maxHops: 10_000,
        robots: 'ignore',
        perHost: 1,
        delayFactor: 0,
        minDelayMs: 150,
        maxDelayMs: 150,
        limitPages: 1000,
      },
    });
    crawlId = started.id;
    await byTestId('nav-library').click();
    await page.locator(`[data-testid=library-row][data-id="${crawlId}"]`).waitFor();
    await byTestId(`monitor-${crawlId}`).click();
    await expect.poll(state, { timeout: 15_000 }).toBe('running');

    // Progress against the page limit, with an ETA while it moves.
    await expect.poll(() => byTestId('limit-limitPages').textContent(), { timeout: 15_000 }).toMatch(/\/ 1,000/);
    await expect.poll(() => byTestId('eta-limitPages').textContent(), { timeout: 15_000 }).toMatch(/ETA \d/);

    // The crawl.log tail, read from the file, newest first.
    await expect.poll(() => byTestId('log-line').count(), { timeout: 15_000 }).toBeGreaterThan(2);
    // The newest line is a page of the crawl (the events host's robots.txt, a prerequisite, may
    // be newest for a moment at the start).
    await expect.poll(() => byTestId('log-line').first().textContent(), { timeout: 15_000 }).toMatch(/calendar\/\d+\/\d+\/|articles\/a\d+\.html/);

    // A host's queue, in claim order, paged.
    const host = new URL(site.origin).host;
    await byTestId(`queue-${host}`).click();
    await expect.poll(() => byTestId('queue-uris').locator('li').count(), { timeout: 10_000 }).toBe(50);
    expect(await byTestId('queue-uris').locator('li').first().textContent()).toMatch(/articles\/a\d+\.html/);
    await byTestId('queue-more').click();
    await expect.poll(() => byTestId('queue-uris').locator('li').count()).toBe(100);
  }, 60_000);

  it('lists scope rejections by rule from scope.log, and filters the crawl log by status, host and text', async () => {
    await expect.poll(() => byTestId('scope-rejections').locator('button').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    // Rejected links are counted apart from failures, and say they were never queued.
    expect(await byTestId('stat-rejected').textContent()).toContain('never queued');
    expect(await byTestId('stat-failed').textContent()).toContain('Fetch errors');
    const rule = (await byTestId('scope-rejections').locator('button').first().getAttribute('data-key'))!;
    await byTestId('scope-rejections').locator('button').first().click();
    await expect.poll(() => byTestId('log-table').getAttribute('data-log')).toBe('scope');
    await expect.poll(() => byTestId('log-line').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await byTestId('log-line').first().textContent()).toContain(rule);
    expect(await byTestId('log-scope').getAttribute('aria-checked')).toBe('true');

    // Arrow keys move the radio selection back to crawl.log (WAI-ARIA radio group).
    await byTestId('log-scope').focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => byTestId('log-crawl').getAttribute('aria-checked')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('log-crawl');
    expect(await byTestId('log-scope').getAttribute('tabindex')).toBe('-1');

    await byTestId('log-status').fill('2xx');
    await byTestId('log-text').fill('articles/a1');
    await expect.poll(async () => {
      const rows = await byTestId('log-line').allTextContents();
      return rows.length > 0 && rows.every((r) => r.includes('articles/a1'));
    }, { timeout: 10_000 }).toBe(true);
    await byTestId('log-host').fill('no-such-host.example');
    await expect.poll(() => byTestId('log-table').textContent()).toContain('no matching lines');
    await byTestId('log-host').fill('');
    await byTestId('log-text').fill('');
    await byTestId('log-status').fill('');
    await expect.poll(() => byTestId('log-line').count(), { timeout: 10_000 }).toBeGreaterThan(2);
    await byTestId('log-panel').scrollIntoViewIfNeeded();
    await shot('m01-monitor-log-1280');
  }, 60_000);

  it('previews a trap exclusion (captured and queued matches), applies it only on confirm, and the queued matches are dropped', async () => {
    await expect.poll(() => byTestId('traps').count(), { timeout: 30_000 }).toBe(1);
    // Flagged as what it is: a chain of near-identical months, each found on the one before.
    expect(await byTestId('traps').textContent()).toMatch(/chain of \d+ URLs each found on the previous one/);
    const okBefore = await outcome(200);
    await byTestId('trap-exclude').click();
    await expect.poll(() => byTestId('preview-queued').count(), { timeout: 10_000 }).toBe(1);
    const queued = Number((await byTestId('preview-queued').locator('strong').textContent())!.replace(/,/g, ''));
    const captured = Number((await byTestId('preview-captured').locator('strong').textContent())!.replace(/,/g, ''));
    // The months fetched so far, and the next ones each way, found but not fetched yet.
    expect(queued).toBeGreaterThan(0);
    expect(captured).toBeGreaterThanOrEqual(10);
    expect(captured).toBeLessThanOrEqual(events.requests.length);
    expect(await byTestId('exclude-dialog').textContent()).toMatch(/calendar\/\d+\/\d+\//);
    await shot('m02-trap-confirm-1280');
    await page.setViewportSize({ width: 1024, height: 700 });
    await shot('m02-trap-confirm-1024');
    await expectNothingCutOff(page, '[data-testid=exclude-dialog] button');
    await page.setViewportSize({ width: 1280, height: 800 });

    // Cancel applies nothing.
    await byTestId('exclude-cancel').click();
    expect((await app.service.handlers['library.open']({ id: crawlId })).settings!.exclude).toEqual([]);

    await byTestId('trap-exclude').click();
    await expect.poll(() => byTestId('exclude-confirm').isEnabled(), { timeout: 10_000 }).toBe(true);
    await byTestId('exclude-confirm').click();
    // The running crawl took it (no restart): its settings keep it once the dialog closes.
    await expect.poll(() => byTestId('exclude-dialog').count(), { timeout: 20_000 }).toBe(0);
    expect((await app.service.handlers['library.open']({ id: crawlId })).settings!.exclude.length).toBe(1);
    // The exclusion is the detector's: the calendar months on the events host, not the site.
    const [exclude] = (await app.service.handlers['library.open']({ id: crawlId })).settings!.exclude;
    expect(new RegExp(exclude!).test(`${events.origin}/calendar/2031/4/`)).toBe(true);
    expect(new RegExp(exclude!).test(`${site.origin}/articles/a1.html`)).toBe(false);
    const calBefore = events.requests.length;
    // The queued months are dropped (out of scope, -5000) instead of fetched.
    await expect.poll(() => outcome(-5000), { timeout: 30_000 }).toBeGreaterThan(0);
    // Not one of them reached the events host.
    expect(events.requests.length - calBefore).toBe(0);
    // The outcome panel still agrees with the totals.
    const okAfter = await outcome(200);
    expect(okAfter).toBeGreaterThanOrEqual(okBefore);
    expect(okAfter).toBeLessThanOrEqual(await num('stat-downloaded'));
    const snap = (await app.service.handlers['crawl.snapshot']({ id: crawlId }))!;
    expect(Object.values(snap.statusCodes).reduce((a, b) => a + b, 0)).toBe(snap.downloaded + snap.failed);
  }, 90_000);

  it('excludes any pattern from the Monitor: the field, the preview count as the queue grows, and the queued matches dropped live', async () => {
    const pattern = String.raw`/articles/a\d*7\.html$`;
    const re = new RegExp(pattern);
    // A host's queue offers an exclusion of that host, to edit or cancel.
    if ((await byTestId('queue-view').count()) === 0) await byTestId(`queue-${new URL(site.origin).host}`).click();
    await byTestId('queue-exclude').click();
    expect(await byTestId('exclude-pattern').inputValue()).toContain(new URL(site.origin).host.replace(/[.]/g, '\\.'));
    await byTestId('exclude-cancel').click();

    await byTestId('monitor-exclude').click();
    expect(await byTestId('exclude-pattern').inputValue()).toBe('');
    await byTestId('exclude-pattern').fill(pattern);
    await expect.poll(() => byTestId('preview-queued').count(), { timeout: 10_000 }).toBe(1);
    const queued = Number((await byTestId('preview-queued').locator('strong').textContent())!.replace(/,/g, ''));
    expect(queued).toBeGreaterThan(0);
    expect(await byTestId('exclude-dialog').locator('li').first().textContent()).toMatch(re);
    // Refreshed while open: the time it was read moves on with the snapshots.
    const first = await byTestId('preview-updated').textContent();
    await expect.poll(() => byTestId('preview-updated').textContent(), { timeout: 10_000 }).not.toBe(first);
    await shot('m07-exclude-any-1280');
    await expectNothingCutOff(page, '[data-testid=exclude-dialog] button, [data-testid=exclude-dialog] input');

    await byTestId('exclude-confirm').click();
    await expect.poll(() => byTestId('exclude-dialog').count(), { timeout: 20_000 }).toBe(0);
    const matchingBefore = site.requests.filter((p) => re.test(p)).length;
    expect((await app.service.handlers['library.open']({ id: crawlId })).settings!.exclude).toContain(pattern);
    // The dropped ones are in scope.log, with the rule.
    const scope = await app.service.handlers['crawl.logTail']({ id: crawlId, log: 'scope', limit: 1000, rule: 'exclude-regex', text: '/articles/' });
    const drops = scope.lines.filter((l) => l.reason?.startsWith('dropped from the queue by a live exclusion'));
    expect(drops.length).toBe(queued >= drops.length ? drops.length : -1); // no more than the preview counted
    expect(drops.length).toBeGreaterThan(0);
    expect(drops.every((l) => re.test(l.url))).toBe(true);
    // And none is fetched from now on (one already on the wire may finish: one per host).
    await expect.poll(() => site.requests.filter((p) => p.startsWith('/articles/')).length, { timeout: 30_000 }).toBeGreaterThan(matchingBefore + 5);
    expect(site.requests.filter((p) => re.test(p)).length - matchingBefore).toBeLessThanOrEqual(1);
    excluded = re;
  }, 90_000);

  it('pauses, lowers the page limit at resume, finishes at it without an error colour or a current rate, and resumes from the library with the limit cleared', async () => {
    await expect.poll(() => site.requests.filter((p) => p.startsWith('/articles/')).length, { timeout: 30_000 }).toBeGreaterThan(3);
    await byTestId('pause').click();
    await expect.poll(state, { timeout: 15_000 }).toBe('paused');
    expect(await byTestId('rates').textContent()).toMatch(/now —/);
    await byTestId('resume-limits').click();
    expect(await byTestId('resume-limitPages').inputValue()).toBe('1000');
    const pages = (await app.service.handlers['crawl.snapshot']({ id: crawlId }))!.pages;
    await byTestId('resume-limitPages').fill(String(pages + 3));
    await byTestId('resume-confirm').click();
    await expect.poll(async () => (await app.service.handlers['library.open']({ id: crawlId })).settings!.limitPages, { timeout: 20_000 }).toBe(pages + 3);
    // (The paused run ends first, by the operator, for the restart with the new limit.)
    await expect.poll(async () => `${await state()} ${await finishReason()}`, { timeout: 60_000 }).toBe('finished (limit-pages)');
    expect(await byTestId('crawl-message').getAttribute('class')).not.toContain('error-text');
    const colour = await byTestId('crawl-message').evaluate((el) => getComputedStyle(el).color);
    const bad = await page.evaluate(() => {
      const probe = document.createElement('span');
      probe.className = 'error-text';
      document.body.append(probe);
      const c = getComputedStyle(probe).color;
      probe.remove();
      return c;
    });
    expect(colour).not.toBe(bad);
    expect(await byTestId('rates').textContent()).toMatch(/now —/);
    expect(await byTestId('eta-limitPages').textContent()).toContain('reached');
    await shot('m03-monitor-finished-1280');
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.evaluate(() => document.querySelector('.screen')?.scrollTo(0, 0));
    await shot('m03-monitor-finished-1024');
    await expectNothingCutOff(page, 'main button, main input, main select');

    // Resume from the library: a crawl stopped by a limit opens the Monitor with its limits to edit.
    await byTestId('nav-library').click();
    await byTestId(`resume-${crawlId}`).click();
    await expect.poll(() => byTestId('resume-dialog').isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await byTestId('crawl-state').getAttribute('data-state')).toBe('finished');
    expect(await byTestId('resume-limitPages').inputValue()).toBe(String(pages + 3));
    await byTestId('resume-limitPages').fill('0');
    await shot('m04-resume-limits-1024');
    await expectNothingCutOff(page, '[data-testid=resume-dialog] button, [data-testid=resume-dialog] input');
    await byTestId('resume-confirm').click();
    await expect.poll(async () => (await app.service.handlers['library.open']({ id: crawlId })).settings!.limitPages, { timeout: 20_000 }).toBe(0);
    // The articles left, one every 150 ms.
    await expect.poll(async () => `${await state()} ${await finishReason()}`, { timeout: 120_000 }).toBe('finished (frontier-empty)');
    expect(await byTestId('limits').textContent()).toContain('No limits set');
    // Every article was fetched once the limit was lifted, but those excluded while still queued.
    const arts = new Set(site.requests.filter((p) => p.startsWith('/articles/')));
    const all = Array.from({ length: ARTICLES }, (_, i) => `/articles/a${i + 1}.html`);
    expect(all.filter((a) => !excluded!.test(a) && !arts.has(a))).toEqual([]);
    expect(arts.size).toBeLessThan(ARTICLES);
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 240_000);

  it('keeps the log after the app is reloaded (read from the files, not from live events)', async () => {
    await page.reload();
    await byTestId('nav-library').click();
    await byTestId(`monitor-${crawlId}`).click();
    await expect.poll(() => byTestId('log-line').count(), { timeout: 10_000 }).toBe(100);
    await byTestId('log-more').click();
    await expect.poll(() => byTestId('log-line').count(), { timeout: 10_000 }).toBe(200);
    await byTestId('log-status').fill('-5000');
    await expect.poll(async () => (await byTestId('log-line').allTextContents()).every((t) => t.includes('out of scope')), { timeout: 10_000 }).toBe(true);
    // Newest recent URI first.
    const times = await byTestId('recent-table').locator('tbody tr td:first-child').allTextContents();
    expect(times.length).toBeGreaterThan(1);
    expect([...times].sort().reverse()).toEqual(times);
    await page.setViewportSize({ width: 1024, height: 700 });
    await byTestId('hosts-table').scrollIntoViewIfNeeded();
    await shot('m06-monitor-hosts-outcomes-1024');
    await expectNothingCutOff(page, 'main button, main input, main select');
    await byTestId('log-panel').scrollIntoViewIfNeeded();
    await shot('m05-monitor-log-reopened-1024');
    await expectNothingCutOff(page, '[data-testid=log-panel] button, [data-testid=log-panel] input');
  }, 60_000);
});
