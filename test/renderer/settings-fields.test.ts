// @vitest-environment happy-dom
/**
 * The New crawl form's fields and the Resume "Limits…" dialog take their labels, units, bounds
 * and help from the settings registry (issue 33): an error is told in the field's unit and by
 * its label, a value that rounds to 0 is not "no limit", a default shows as the round number it
 * is in the field's unit, the problem bar names every problem, and every field has its help.
 * The form is checked by the core's real checkCrawl, as the app's gate would.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, render } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import NewCrawlScreen from '../../renderer/src/screens/NewCrawlScreen.svelte';
import MonitorScreen from '../../renderer/src/screens/MonitorScreen.svelte';
import { NewCrawlState } from '../../renderer/src/lib/new-crawl-state.svelte.ts';
import { MonitorState } from '../../renderer/src/lib/monitor-state.svelte.ts';
import { AppState } from '../../renderer/src/lib/app-state.svelte.ts';
import { defaultSettings, POLITENESS_PRESETS } from '../../core/api/settings.ts';
import { settingRow } from '../../core/api/settings-registry.ts';
import { checkCrawl, scopeTest } from '../../core/app/crawl-checks.ts';
import { fakeApi, snapshot, tick } from './fake-api.ts';

function newCrawlForm() {
  const fake = fakeApi({
    'crawl.check': (req) => {
      const { valid, seeds, urls, issues, scopeRules } = checkCrawl(req);
      return { valid, seeds, urls, issues, scopeRules };
    },
    'scope.test': (req) => scopeTest(req),
    'robots.test': () => null as never,
  });
  const form = new NewCrawlState(fake.api, defaultSettings(), POLITENESS_PRESETS);
  form.seedsText = 'http://example.org/';
  const view = render(NewCrawlScreen, { form, onstarted: () => {} });
  flushSync();
  return { form, view };
}

/** The text input of the field labelled `label` (its <label> holds the label text and the input). */
function inputOf(root: HTMLElement, label: string): HTMLInputElement {
  const field = [...root.querySelectorAll('label')].find((l) => l.querySelector('.lbl, span')?.textContent?.trim() === label);
  if (!field) throw new Error(`no field labelled ${label}`);
  return field.querySelector('input, select') as HTMLInputElement;
}

async function type(form: NewCrawlState, input: HTMLInputElement, text: string) {
  await fireEvent.input(input, { target: { value: text } });
  await form.runCheck();
  flushSync();
}

const errorUnder = (input: HTMLElement) => input.closest('label')?.querySelector('.error-text')?.textContent ?? null;

describe('New crawl form fields in their units', () => {
  it('a field in MB or minutes reports its problem in that unit and label, never in bytes or seconds', async () => {
    const { form, view } = newCrawlForm();
    const downloaded = inputOf(view.container, 'Download limit');
    await type(form, downloaded, '-1');
    expect(errorUnder(downloaded)).toBe('must be 0 MB or more (0 means no limit), not -1 MB');
    expect(view.getByTestId('issues').textContent).toContain('Download limit: must be 0 MB or more (0 means no limit), not -1 MB');
    expect(view.container.textContent).not.toMatch(/1048576|1000000/);
  });

  it('0.004 min is not sent as 0 (no limit): it is a problem, and the form is not ready', async () => {
    const { form, view } = newCrawlForm();
    const time = inputOf(view.container, 'Time limit');
    await type(form, time, '0.004');
    expect(form.settings.limitTimeS).not.toBe(0);
    expect(form.check?.valid).toBe(false);
    expect(errorUnder(time)).toBe('0.004 min is less than 1 s: give at least 0.02 min, or 0 for no limit');
    await type(form, time, '1.5');
    expect(form.settings.limitTimeS).toBe(90);
    expect(form.check?.valid).toBe(true);
  });

  it('"Rotate at" shows its default as the round number it is in its unit', () => {
    const { view } = newCrawlForm();
    const rotate = inputOf(view.container, 'Rotate at');
    expect(rotate.value).toBe('1000');
    expect(rotate.closest('label')!.textContent).toContain('MB');
    expect(defaultSettings().warcMaxBytes).toBe(1000 * 1000 ** 2);
    const body = inputOf(view.container, 'Max body');
    expect(body.value).toBe('1024');
    expect(body.closest('label')!.textContent).toContain('MiB');
  });

  it('the problem bar names every problem, not only the first', async () => {
    const { form, view } = newCrawlForm();
    form.showAdvanced = true;
    flushSync();
    await type(form, inputOf(view.container, 'Connections / host'), '0');
    await type(form, inputOf(view.container, 'Page limit'), '-5');
    await type(form, inputOf(view.container, 'Retries'), '2.5');
    const bar = view.getByTestId('issues').textContent!;
    expect(bar).toMatch(/^Connections \/ host: /);
    for (const label of ['Connections / host', 'Page limit', 'Retries']) expect(bar).toContain(`${label}: `);
    expect(view.getByTestId('start-bar').textContent).toContain('3 to fix');
  });

  it('every field has its help from the registry, the Heritrix-named ones included', () => {
    const { form, view } = newCrawlForm();
    form.showAdvanced = true;
    flushSync();
    for (const key of ['transHops', 'maxPathDepth', 'concurrency', 'queuePolicy', 'dedup', 'maxBodyBytes', 'warcMaxBytes', 'warcPrefix', 'limitTimeS', 'retryBackoff']) {
      const row = settingRow(key)!;
      const field = inputOf(view.container, row.label).closest('label')!;
      expect(field.getAttribute('title'), key).toBe(row.help);
    }
  });
});

describe('Resume "Limits…" dialog', () => {
  async function openDialog() {
    const { api, calls } = fakeApi({
      'crawl.snapshot': () => snapshot({ state: 'finished', finishReason: 'limit-pages' }),
      'library.open': () => ({ settings: { ...defaultSettings(), limitPages: 40 } }) as never,
      'crawl.logTail': () => ({ lines: [], next: null, fileBytes: 0, scannedBytes: 0 }),
      'crawl.resume': ({ id }) => ({ id }),
    });
    const app = new AppState(api);
    const monitor = new MonitorState(api);
    await monitor.attach('c1');
    const view = render(MonitorScreen, { app, monitor });
    flushSync();
    await fireEvent.click(view.getByTestId('resume-limits'));
    flushSync();
    return { view, calls, monitor };
  }

  it('refuses −5 and 2.5 in the dialog, by the field\'s label, and sends nothing', async () => {
    const { view, calls, monitor } = await openDialog();
    const dialog = view.getByTestId('resume-dialog');
    const pages = view.getByTestId('resume-limitPages') as HTMLInputElement;
    await fireEvent.input(pages, { target: { value: '-5' } });
    flushSync();
    expect(view.getByTestId('resume-limitPages-error').textContent).toBe('must be 0 or more (0 means no limit), not -5');
    expect(dialog.contains(view.getByTestId('resume-limitPages-error'))).toBe(true);
    expect(pages.closest('label')!.textContent).toContain('Page limit');
    expect((view.getByTestId('resume-confirm') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(pages, { target: { value: '2.5' } });
    flushSync();
    expect(view.getByTestId('resume-limitPages-error').textContent).toBe('must be a whole number, not 2.5');
    await fireEvent.click(view.getByTestId('resume-confirm'));
    await tick();
    expect(calls.some((c) => c.name === 'crawl.resume')).toBe(false);
    expect(monitor.error ?? '').not.toContain('limitPages');
  });

  it('shows the limits in the form\'s units (MB, minutes) and sends them in the settings\' own', async () => {
    const { view, calls } = await openDialog();
    const dialog = view.getByTestId('resume-dialog');
    expect(dialog.textContent).toContain('Download limit');
    expect(dialog.textContent).toContain('MB');
    expect(dialog.textContent).toContain('min');
    expect(dialog.textContent).not.toMatch(/\(bytes\)|\(seconds\)/);
    await fireEvent.input(view.getByTestId('resume-limitBytes'), { target: { value: '5' } });
    await fireEvent.input(view.getByTestId('resume-limitTimeS'), { target: { value: '10' } });
    await fireEvent.input(view.getByTestId('resume-limitPages'), { target: { value: '60' } });
    flushSync();
    await fireEvent.click(view.getByTestId('resume-confirm'));
    await tick();
    expect(calls.find((c) => c.name === 'crawl.resume')!.payload).toEqual({ id: 'c1', settings: { limitPages: 60, limitBytes: 5_000_000, limitTimeS: 600 } });
  });
});
