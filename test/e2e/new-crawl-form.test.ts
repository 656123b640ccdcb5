/**
 * The New crawl form refuses bad input field by field, in Chromium: every number field shows the
 * core's message under itself (or keeps the accepted value), Start stays disabled while any
 * problem exists, nothing is clamped on the way to the core. Issue #16 item 1.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ARTIFACTS, findChromium, NO_CHROMIUM_MESSAGE, startAppSession, type AppSession, type Harness } from './harness.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('New crawl form validation in Chromium', () => {
  let session: AppSession;
  let app: Harness;
  let page: Page;
  const byTestId = (id: string) => page.getByTestId(id);
  const shot = async (name: string) => {
    for (const [w, h] of [[1280, 800], [1024, 700]] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${w}x${h}.png`) });
    }
  };

  beforeAll(async () => {
    session = await startAppSession({ chromium: chromium!, viewport: { width: 1280, height: 800 } });
    ({ app, page } = session);
  }, 120_000);

  it('opens the form with a valid seed: Start enabled', async () => {
    await byTestId('nav-new-crawl').click();
    await byTestId('seeds-input').fill('http://127.0.0.1:9/');
    await expect.poll(() => byTestId('start-crawl').isEnabled(), { timeout: 5000 }).toBe(true);
    await byTestId('politeness-advanced').click();
    // A value set from outside the field (a preset) shows in it.
    await byTestId('politeness-fast').click();
    await expect.poll(() => byTestId('per-host').inputValue(), { timeout: 5000 }).toBe('4');
    await byTestId('politeness-polite').click();
    await expect.poll(() => byTestId('per-host').inputValue(), { timeout: 5000 }).toBe('1');
    expect(await byTestId('min-delay').inputValue()).toBe('3000');
  });

  afterAll(async () => {
    await session?.close();
  });

  // Read at once (no auto-wait): an error that disappears between a count and a read must not stall the poll.
  const errorOf = async (testid: string) => (await byTestId(`${testid}-error`).allTextContents())[0] ?? null;

  // −1, 0, a fraction, text and a huge value in fields of each kind: whole ≥ 0, whole ≥ 1, any number ≥ 0.
  const CASES: [testid: string, key: string, expected: Record<string, string | null>][] = [
    ['limit-pages', 'limitPages', { '-1': 'must be 0 or more (0 means no limit), not -1', '0': null, '2.5': 'must be a whole number, not 2.5', abc: 'must be a number, not "abc"', '1e30': 'must be at most 9,007,199,254,740,991, not 1,000,000,000,000,000,000,000,000,000,000' }],
    ['per-host', 'perHost', { '-1': 'must be 1 or more, not -1', '0': 'must be 1 or more, not 0', '2.5': 'must be a whole number, not 2.5', abc: 'must be a number, not "abc"', '1e30': 'must be at most 64, not 1,000,000,000,000,000,000,000,000,000,000' }],
    ['delay-factor', 'delayFactor', { '-1': 'must be 0 or more, not -1', '0': null, '2.5': null, abc: 'must be a number, not "abc"', '1e30': 'must be at most 1,000, not 1,000,000,000,000,000,000,000,000,000,000' }],
    ['max-retries', 'maxRetries', { '-1': 'must be 0 or more, not -1', '0': null, '2.5': 'must be a whole number, not 2.5', abc: 'must be a number, not "abc"', '1e30': 'must be at most 1,000, not 1,000,000,000,000,000,000,000,000,000,000' }],
  ];

  it.each(CASES)('%s: -1, 0, 2.5, text and 1e30 show the message or are kept as typed', async (testid, key, expected) => {
    const original = await byTestId(testid).inputValue();
    for (const [typed, message] of Object.entries(expected)) {
      await byTestId(testid).fill(typed);
      if (message === null) {
        await expect.poll(() => errorOf(testid), { timeout: 5000 }).toBe(null);
        await expect.poll(() => byTestId('start-crawl').isEnabled(), { timeout: 5000 }).toBe(true);
        expect(await byTestId(testid).inputValue()).toBe(typed);
      } else {
        await expect.poll(() => errorOf(testid), { message: `${key} = ${typed}`, timeout: 5000 }).toBe(message);
        expect(await byTestId(testid).inputValue()).toBe(typed); // not rewritten on screen
        await expect.poll(() => byTestId('start-crawl').isDisabled(), { timeout: 5000 }).toBe(true);
      }
    }
    await byTestId(testid).fill(original);
    await expect.poll(() => byTestId('start-crawl').isEnabled(), { timeout: 5000 }).toBe(true);
  });

  it('the issue #16 form: every problem at its field, Start disabled until all are fixed', async () => {
    await byTestId('limit-pages').fill('-5');
    await byTestId('min-delay').fill('-100');
    await byTestId('max-delay').fill('-50');
    await byTestId('per-host').fill('-4');
    await byTestId('add-override').click();
    await byTestId('override-host-0').fill('not a host!!');
    await byTestId('override-min-0').fill('-500');
    await byTestId('include-input').fill('(\n/ok/\n[z-a]');
    await byTestId('exclude-input').fill('*bad');

    await expect.poll(() => errorOf('limit-pages'), { timeout: 5000 }).toBe('must be 0 or more (0 means no limit), not -5');
    await expect.poll(() => errorOf('min-delay'), { timeout: 5000 }).toBe('must be 0 or more, not -100');
    await expect.poll(() => errorOf('max-delay'), { timeout: 5000 }).toBe('must be 0 or more, not -50');
    await expect.poll(() => errorOf('per-host'), { timeout: 5000 }).toBe('must be 1 or more, not -4');
    await expect.poll(() => errorOf('override-host-0'), { timeout: 5000 }).toBe('"not a host!!" is not a host name');
    await expect.poll(() => errorOf('override-min-0'), { timeout: 5000 }).toBe('must be 0 or more, not -500');
    const includeError = await page.locator('[data-testid=include-input] ~ .error-text').textContent();
    expect(includeError).toMatch(/^line 1: .*; line 3: /);
    expect(await page.locator('[data-testid=exclude-input] ~ .error-text').textContent()).toBe('line 1: /*bad/ is not a valid regular expression (nothing to repeat)');
    // No flag names anywhere on the form.
    expect(await page.locator('main').textContent()).not.toMatch(/--[a-z]+-[a-z]/);
    // The values stay as typed: nothing was clamped.
    expect(await byTestId('per-host').inputValue()).toBe('-4');
    expect(await byTestId('start-crawl').isDisabled()).toBe(true);
    expect(await byTestId('issues').textContent()).toMatch(/^(Connections \/ host|Min delay|Max delay|Page limit|Include|Exclude|Override 1, host): /);
    expect(await byTestId('politeness-formula').textContent()).toContain('fix the values');
    await byTestId('limits-card').scrollIntoViewIfNeeded();
    await shot('11-new-crawl-invalid-limits');
    await byTestId('politeness-card').scrollIntoViewIfNeeded();
    await shot('11-new-crawl-invalid-politeness');

    // The core refuses a start with these values too (the IPC path, not only the button).
    const refused = await page.evaluate(() => window.trove.crawl.start({ name: 'x', settings: { seeds: ['http://127.0.0.1:9/'], limitPages: -5 } }));
    expect(refused).toMatchObject({ ok: false, error: { code: 'SETTINGS_INVALID' } });

    await byTestId('limit-pages').fill('5');
    await byTestId('min-delay').fill('100');
    await byTestId('max-delay').fill('500');
    await byTestId('per-host').fill('2');
    await byTestId('override-host-0').fill('static.example.org');
    await byTestId('override-min-0').fill('500');
    await byTestId('override-max-0').fill('1000');
    await byTestId('include-input').fill('/ok/');
    await byTestId('exclude-input').fill('/bad/');
    await expect.poll(() => byTestId('start-crawl').isEnabled(), { timeout: 5000 }).toBe(true);
    for (const id of ['limit-pages', 'min-delay', 'max-delay', 'per-host', 'override-host-0', 'override-min-0']) expect(await errorOf(id)).toBe(null);
  });

  it('fields in MB or minutes: problems in the field\'s unit, 0.004 min is not "no limit", Rotate at shows 1000 MB (issue 33)', async () => {
    if ((await byTestId('limits-card').count()) === 0) {
      await byTestId('nav-new-crawl').click();
      await byTestId('seeds-input').fill('http://127.0.0.1:9/');
    }
    await expect.poll(() => byTestId('start-crawl').isEnabled(), { timeout: 5000 }).toBe(true);
    expect(await byTestId('warc-max').inputValue()).toBe('1000');
    await byTestId('limit-bytes').fill('-1');
    await expect.poll(() => errorOf('limit-bytes'), { timeout: 5000 }).toBe('must be 0 MB or more (0 means no limit), not -1 MB');
    await expect.poll(() => byTestId('issues').textContent(), { timeout: 5000 }).toContain('Download limit: must be 0 MB or more');
    await byTestId('limit-bytes').fill('0');
    await byTestId('limit-time').fill('0.004');
    await expect.poll(() => errorOf('limit-time'), { timeout: 5000 }).toBe('0.004 min is less than 1 s: give at least 0.02 min, or 0 for no limit');
    await expect.poll(() => byTestId('start-crawl').isDisabled(), { timeout: 5000 }).toBe(true);
    await byTestId('limit-time').fill('0');
    await expect.poll(() => byTestId('start-crawl').isEnabled(), { timeout: 5000 }).toBe(true);
  });

  it('Capture pages with a browser: Off / Automatic / Every page, each explained; the tabs count shows once not Off, checked by the core like any field', async () => {
    if ((await byTestId('browser-card').count()) === 0) {
      await byTestId('nav-new-crawl').click();
      await byTestId('seeds-input').fill('http://127.0.0.1:9/');
    }
    await expect.poll(() => byTestId('start-crawl').isEnabled(), { timeout: 5000 }).toBe(true);
    for (const [id, title] of [['http', 'Off'], ['auto', 'Automatic'], ['browser', 'Every page']]) {
      const text = (await byTestId(`capture-${id}`).textContent()) ?? '';
      expect(text).toContain(title);
      expect(text.length).toBeGreaterThan(title.length + 30);
    }
    expect(await byTestId('capture-http').locator('input').isChecked()).toBe(true);
    expect(await byTestId('browser-tabs').count()).toBe(0);
    await byTestId('capture-browser').click();
    expect(await byTestId('browser-tabs').inputValue()).toBe('2');
    await byTestId('browser-tabs').fill('0');
    await expect.poll(() => errorOf('browser-tabs'), { timeout: 5000 }).toBe('must be 1 or more, not 0');
    await expect.poll(() => byTestId('start-crawl').isDisabled(), { timeout: 5000 }).toBe(true);
    await byTestId('browser-tabs').fill('3');
    await expect.poll(() => errorOf('browser-tabs'), { timeout: 5000 }).toBe(null);
    await expect.poll(() => byTestId('start-crawl').isEnabled(), { timeout: 5000 }).toBe(true);
    expect(await byTestId('start-bar').textContent()).toContain('browser, 3 tabs');
    await byTestId('capture-auto').click();
    expect(await byTestId('start-bar').textContent()).toContain('browser when needed, 3 tabs');
    await byTestId('browser-card').scrollIntoViewIfNeeded();
    await shot('11-new-crawl-browser-capture');
    await byTestId('capture-http').click();
    expect(await byTestId('browser-tabs').count()).toBe(0);
  });
});
