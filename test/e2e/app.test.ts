/**
 * The desktop app end to end in real Chromium: the built renderer, `window.trove` bound to the
 * real core/app handlers, a real crawl of a local fixture site in a worker thread, browsing the
 * records, full-text search and replay answered from the archive only.
 *
 * Screenshots of every screen go to test-artifacts/ (gitignored).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { startFixtureSite, type FixtureSite } from '../app/fixture-site.ts';
import { ARTIFACTS, CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE, openApp, rendererDir, serveStatic, tempLibrary, type Harness, type StaticServer } from './harness.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('Trove in Chromium', () => {
  let browser: Browser;
  let server: StaticServer;
  let site: FixtureSite;
  let app: Harness;
  let page: Page;
  let libraryDir: string;
  let crawlId = '';

  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  const byTestId = (id: string) => page.getByTestId(id);

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const [dir, fixture] = await Promise.all([rendererDir(), startFixtureSite({ latencyMs: 60 })]);
    site = fixture;
    server = await serveStatic(dir);
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({
      executablePath: chromium!,
      // Playwright gives every launch a fresh temporary --user-data-dir itself.
      args: CHROMIUM_ARGS,
    });
    libraryDir = tempLibrary();
    app = await openApp({
      browser,
      origin: server.origin,
      libraryDir,
      chooseFiles: () => {
        const warcs = path.join(libraryDir, crawlId, 'warcs');
        return fs.readdirSync(warcs).filter((n) => n.endsWith('.warc.gz')).map((n) => path.join(warcs, n));
      },
    });
    page = app.page;
    page.on('pageerror', (err) => console.error('[page error]', err));
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.close();
    await site?.close();
    if (libraryDir) fs.rmSync(libraryDir, { recursive: true, force: true });
  });

  it('shows an empty library', async () => {
    await expect.poll(() => page.getByText('Your library is empty').isVisible()).toBe(true);
    await shot('01-library-empty');
  });

  it('sets up a crawl: seeds checked as you type, scope and robots tests, politeness', async () => {
    await byTestId('nav-new-crawl').click();
    await byTestId('crawl-name').fill('Fixture site');
    await byTestId('seeds-input').fill(`${site.origin}/\nnot a url`);
    await expect.poll(() => page.locator('[data-testid=seed-list] li').count()).toBe(2);
    await expect.poll(() => byTestId('seed-list').getByText('invalid').count()).toBe(1);
    await expect(byTestId('start-crawl').isDisabled()).resolves.toBe(true);
    await byTestId('seeds-input').fill(`${site.origin}/`);
    await expect.poll(() => byTestId('start-crawl').isEnabled()).toBe(true);

    await shot('02a-new-crawl-seeds');

    // Scope: the deciding rule for a URL, live.
    await byTestId('exclude-input').fill('/calendar/');
    await byTestId('scope-test-url').fill(`${site.origin}/articles/first.html`);
    await expect.poll(() => byTestId('scope-verdict').textContent()).toContain('ACCEPT');
    expect(await byTestId('scope-rule').textContent()).toBe('scope-prefix');
    await byTestId('scope-host').click();
    await expect.poll(() => byTestId('scope-rule').textContent()).toBe('scope-host');
    await byTestId('scope-test-url').fill(`${site.origin}/calendar/2024/`);
    await expect.poll(() => byTestId('scope-rule').textContent()).toBe('exclude-regex');
    await expect.poll(() => byTestId('scope-verdict').textContent()).toContain('REJECT');

    // Robots: obey, with the matching rule and its line.
    await byTestId('robots-test-url').fill('/private/page.html');
    await expect.poll(() => byTestId('robots-verdict').textContent()).toContain('DISALLOWED');
    expect(await byTestId('robots-rule').textContent()).toContain('Disallow: /private/ · line 2');
    await byTestId('robots-ignore').click();
    await expect.poll(() => byTestId('robots-verdict').textContent()).toContain('ALLOWED');
    await byTestId('robots-obey').click();
    await expect.poll(() => byTestId('robots-verdict').textContent()).toContain('DISALLOWED');
    await byTestId('robots-card').scrollIntoViewIfNeeded();
    await shot('02b-new-crawl-robots');

    // Politeness: the fast preset, then a small fixed delay so there is time to pause.
    await byTestId('politeness-fast').click();
    await byTestId('politeness-advanced').click();
    await byTestId('per-host').fill('1');
    await byTestId('min-delay').fill('300');
    await byTestId('max-delay').fill('300');
    await expect.poll(() => byTestId('politeness-formula').textContent()).toContain('300 ms');
    await byTestId('operator').fill('Trove e2e <e2e@example.org>');
    await expect.poll(() => byTestId('start-crawl').isEnabled()).toBe(true);
    await shot('02c-new-crawl-politeness');
  });

  it('starts the crawl, watches progress, pauses and resumes', async () => {
    await byTestId('start-crawl').click();
    await expect.poll(() => byTestId('crawl-state').getAttribute('data-state'), { timeout: 15_000 }).toBe('running');
    await expect.poll(async () => Number((await byTestId('stat-downloaded').locator('.value').textContent())!.replace(/,/g, '')), { timeout: 15_000 }).toBeGreaterThan(0);
    crawlId = (await app.service.handlers['library.list']({})).find((e) => e.name === 'Fixture site')!.id;

    await byTestId('pause').click();
    await expect.poll(() => byTestId('crawl-state').getAttribute('data-state'), { timeout: 10_000 }).toBe('paused');
    const requestsWhilePaused = site.requests.length;
    await page.waitForTimeout(1200);
    expect(site.requests.length).toBe(requestsWhilePaused);
    await shot('03-monitor-paused');

    await byTestId('resume').click();
    await expect.poll(() => byTestId('crawl-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('finished');
    expect(site.requests.length).toBeGreaterThan(requestsWhilePaused);
    // robots.txt kept /private/ out; the monitor shows it among the outcomes.
    await expect.poll(() => byTestId('status-codes').textContent()).toContain('robots.txt');
    expect(site.requests).not.toContain('/private/secret.html');
    expect(await byTestId('hosts-table').locator('tbody tr').count()).toBeGreaterThan(0);
    expect(await byTestId('recent-table').locator('tbody tr').count()).toBeGreaterThan(5);
    await shot('04-monitor-finished');
  });

  it('browses records with filters, detail and full-text search', async () => {
    await byTestId('monitor-browse').click();
    await expect.poll(() => byTestId('record-row').count()).toBeGreaterThan(10);
    const total = Number((await byTestId('record-total').textContent())!.replace(/,/g, ''));
    expect(total).toBeGreaterThan(20);

    await byTestId('filter-mime').fill('image/');
    await byTestId('filter-type').selectOption('response');
    await expect.poll(() => byTestId('record-row').count()).toBe(2);
    await byTestId('record-row').first().click();
    await expect.poll(() => byTestId('body-image').count()).toBe(1);
    expect(await byTestId('body-image').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);

    await byTestId('filter-mime').fill('text/html');
    await byTestId('filter-url').fill(`${site.origin}/articles/first.html`);
    await expect.poll(() => byTestId('record-row').count()).toBe(1);
    await byTestId('record-row').first().click();
    await expect.poll(() => byTestId('body-text').textContent()).toContain('zebra');
    await byTestId('tab-http').click();
    await expect.poll(() => byTestId('record-detail').textContent()).toContain('HTTP/1.1 200 OK');
    expect(await byTestId('sibling').count()).toBeGreaterThan(0);
    await byTestId('tab-body').click();

    await byTestId('filter-url').fill('');
    await byTestId('filter-mime').fill('');
    await byTestId('filter-type').selectOption('');
    await byTestId('search-input').fill('zebra');
    await expect.poll(() => byTestId('search-hit').count()).toBeGreaterThan(0);
    expect(await byTestId('search-hit').first().textContent()).toContain('First article');
    await shot('05-browser');
  });

  it('replays the archived page with its CSS and images, and never the live site', async () => {
    const before = site.requests.length;
    await byTestId('search-hit').first().click();
    const frame = await replayFrame(page, site.origin);
    await expect.poll(() => frame.evaluate(() => document.readyState)).toBe('complete');
    await expect.poll(() => frame.evaluate(() => document.querySelector('h1')?.textContent)).toBe('First article');
    // The stylesheet came from the archive…
    await expect.poll(() => frame.evaluate(() => getComputedStyle(document.querySelector('h1')!).color)).toBe('rgb(200, 30, 60)');
    await expect.poll(() => frame.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(250, 240, 230)');
    // …and the image too.
    await expect.poll(() => frame.evaluate(() => (document.querySelector('img') as HTMLImageElement).naturalWidth)).toBe(40);
    expect(await byTestId('replay-url').inputValue()).toBe(`${site.origin}/articles/first.html`);
    // The archived page runs in the replay frame: the gate refuses it (sender check).
    const fromFrame = await frame.evaluate(() => (window as unknown as { __troveInvoke(c: string, p: unknown): Promise<unknown> }).__troveInvoke('trove:library.list', {}));
    expect(fromFrame).toMatchObject({ ok: false, error: { code: 'FORBIDDEN_SENDER' } });
    expect(await frame.evaluate(() => typeof (window as { trove?: unknown }).trove)).toBe('undefined');
    expect(await byTestId('replay-ts').textContent()).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    await shot('06-replay');

    // A click inside the archived page: the banner follows, back returns.
    await frame.locator('a', { hasText: 'Home' }).click();
    await expect.poll(() => byTestId('replay-url').inputValue()).toBe(`${site.origin}/`);
    const home = await replayFrame(page, site.origin);
    await expect.poll(() => home.evaluate(() => (document.querySelector('#logo') as HTMLImageElement | null)?.naturalWidth ?? 0)).toBe(64);
    // An archived redirect is followed inside the archive.
    await home.locator('a', { hasText: 'An old link' }).click();
    await expect.poll(() => byTestId('replay-url').inputValue()).toBe(`${site.origin}/about.html`);
    await byTestId('replay-back').click();
    await expect.poll(() => byTestId('replay-url').inputValue()).toBe(`${site.origin}/`);

    expect(site.requests.length).toBe(before);
    expect(app.replayed.some((r) => r.url.endsWith('/style.css') && r.status === 200)).toBe(true);
    expect(app.replayed.some((r) => r.url.endsWith('/old-page') && r.status === 301)).toBe(true);
    await byTestId('replay-close').click();
  });

  it('exports a WACZ package with progress, into the crawl\'s exports folder', async () => {
    await byTestId('filter-mime').fill('image/');
    await byTestId('export-button').click();
    await byTestId('export-warc').click();
    await expect.poll(() => byTestId('export-filter').textContent()).toContain('mime image/');
    await byTestId('export-wacz').click();
    await byTestId('export-run').click();
    await expect.poll(() => byTestId('export-done').isVisible(), { timeout: 20_000 }).toBe(true);
    await shot('06b-export');
    const exported = fs.readdirSync(path.join(libraryDir, crawlId, 'exports'));
    expect(exported.some((n) => n.endsWith('.wacz'))).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => byTestId('export-dialog').count()).toBe(0);
    await byTestId('filter-mime').fill('');
  });

  it('imports a WARC into a new archive and deletes it with confirmation', async () => {
    await byTestId('nav-library').click();
    await expect.poll(() => byTestId('library-row').count()).toBe(1);
    await byTestId('import-button').click();
    await expect.poll(() => byTestId('library-row').count(), { timeout: 20_000 }).toBe(2);
    const rows = await byTestId('library-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    const imported = rows.find((id) => id !== crawlId)!;
    await expect.poll(() => page.locator(`[data-id="${imported}"]`).textContent()).toContain('imported');
    await shot('07-library');

    await byTestId(`delete-${imported}`).click();
    await expect.poll(() => byTestId('delete-dialog').isVisible()).toBe(true);
    await shot('08-delete-confirm');
    await byTestId('confirm-delete').click();
    await expect.poll(() => byTestId('library-row').count()).toBe(1);
    // What is left, if anything, says which part of the delete lost a race (seen once in CI, not
    // reproduced since): the folder's files, and any error the library screen shows.
    const left = path.join(libraryDir, imported);
    const leftover = fs.existsSync(left) ? `left: ${JSON.stringify(fs.readdirSync(left, { recursive: true }))}; screen: ${await page.locator('.library').innerText()}` : '';
    expect(leftover).toBe('');
  });

  it('follows a dark OS theme', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator(`[data-id="${crawlId}"] button[title=Monitor]`).click();
    await expect.poll(() => byTestId('crawl-state').getAttribute('data-state'), { timeout: 15_000 }).toBe('finished');
    await expect.poll(() => page.evaluate(() => getComputedStyle(document.body).backgroundColor), { timeout: 15_000 }).toBe('rgb(20, 23, 28)');
    await shot('09-monitor-dark');
    await byTestId('nav-library').click();
    await byTestId(`browse-${crawlId}`).click();
    await expect.poll(() => byTestId('record-row').count()).toBeGreaterThan(10);
    await shot('10-browser-dark');
    // A theme picked in the app wins over the OS, either way.
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
    expect(await bg()).toBe('rgb(246, 247, 249)');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.evaluate(() => (document.documentElement.dataset.theme = 'dark'));
    expect(await bg()).toBe('rgb(20, 23, 28)');
    await page.evaluate(() => delete document.documentElement.dataset.theme);
    expect(await bg()).toBe('rgb(246, 247, 249)');
  });

  it('validates payloads from the page too', async () => {
    const r = await page.evaluate(() => window.trove.library.open({ id: '../../etc' }));
    expect(r).toMatchObject({ ok: false, error: { code: 'PAYLOAD_INVALID' } });
  });
});

/** The replay iframe's frame, once it shows a page from the fixture's origin. */
async function replayFrame(page: Page, origin: string): Promise<Frame> {
  let found: Frame | undefined;
  await expect
    .poll(() => {
      found = page.frames().find((f) => f !== page.mainFrame() && f.url().startsWith(origin));
      return found !== undefined;
    })
    .toBe(true);
  return found!;
}
