// @vitest-environment happy-dom
// The New crawl form with custom robots rules that have no usable line (`User-agent *` without
// its colon): the form is not ready to start, and the Robots card says why at the editor. The
// check is the core's own (checkCrawl) behind the faked command.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import RobotsCard from '../../renderer/src/screens/new-crawl/RobotsCard.svelte';
import { NewCrawlState } from '../../renderer/src/lib/new-crawl-state.svelte.ts';
import { defaultSettings, POLITENESS_PRESETS } from '../../core/api/settings.ts';
import { checkCrawl } from '../../core/app/crawl-checks.ts';
import { fakeApi } from './fake-api.ts';

describe('Robots card, custom rules with no usable line', () => {
  it('is not ready, and says so at the editor', async () => {
    const { api } = fakeApi({
      // As the app's handler answers it (core/app/app-service.ts).
      'crawl.check': (req) => {
        const { valid, seeds, urls, issues, scopeRules } = checkCrawl(req);
        return { valid, seeds, urls, issues, scopeRules };
      },
    });
    const form = new NewCrawlState(api, defaultSettings(), POLITENESS_PRESETS);
    form.seedsText = 'http://127.0.0.1:8080/\n';
    form.settings.robots = 'custom';
    form.robotsText = 'User-agent *\nDisallow: /private\n';
    const { getByTestId } = render(RobotsCard, { form });
    await form.runCheck();
    flushSync();
    expect(form.canStart).toBe(false);
    expect(getByTestId('robots-card').textContent).toMatch(/no usable line \(line 1: no colon after the field name/);
    form.robotsText = 'User-agent: *\nDisallow: /private\n';
    await form.runCheck();
    flushSync();
    expect(form.issueFor('customRobots')).toBeNull();
    expect(form.canStart).toBe(true);
  });
});
