// @vitest-environment happy-dom
// "Load file…" in the New crawl form: the chosen file's lines are added to the seeds, and the
// file input is cleared for the next pick (it read `currentTarget` after an await, which is null
// by then: "Cannot set properties of null (setting 'value')").
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import SeedsCard from '../../renderer/src/screens/new-crawl/SeedsCard.svelte';
import { NewCrawlState } from '../../renderer/src/lib/new-crawl-state.svelte.ts';
import { defaultSettings, POLITENESS_PRESETS } from '../../core/api/settings.ts';
import { fakeApi } from './fake-api.ts';

describe('SeedsCard Load file…', () => {
  it('adds the file\'s seeds and clears the input without an error', async () => {
    const form = new NewCrawlState(fakeApi({}).api, defaultSettings(), POLITENESS_PRESETS);
    const { container } = render(SeedsCard, { form });
    const input = container.querySelector('input[type=file]') as HTMLInputElement;
    const file = new File(['http://127.0.0.1:8080/\n# a comment\nhttp://127.0.0.1:8080/blog/\n'], 'seeds.txt', { type: 'text/plain' });
    Object.defineProperty(input, 'files', { value: [file], configurable: true });
    let value = 'C:\\fakepath\\seeds.txt';
    Object.defineProperty(input, 'value', { get: () => value, set: (v: string) => (value = v), configurable: true });
    const errors: unknown[] = [];
    const onError = (e: PromiseRejectionEvent | ErrorEvent) => errors.push('reason' in e ? e.reason : e.error);
    window.addEventListener('unhandledrejection', onError);
    window.addEventListener('error', onError);
    const failures: unknown[] = [];
    const onRejection = (r: unknown) => failures.push(r);
    process.on('unhandledRejection', onRejection);
    try {
      input.dispatchEvent(new Event('change', { bubbles: true }));
      await expect.poll(() => form.seedsText).toContain('http://127.0.0.1:8080/blog/');
      await new Promise((r) => setTimeout(r, 20));
      expect([...errors, ...failures]).toEqual([]);
      expect(value).toBe('');
      expect(form.seedsText).not.toContain('# a comment');
    } finally {
      window.removeEventListener('unhandledrejection', onError);
      window.removeEventListener('error', onError);
      process.off('unhandledRejection', onRejection);
    }
  });
});
