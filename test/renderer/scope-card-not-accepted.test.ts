// @vitest-environment happy-dom
// The New crawl form's scope tester when no rule accepted the URL (Heritrix's reject-all stood):
// no rule of the list is marked, so a line under the list says so and names why the scope did not
// take it, from the decision itself. The answer is the core's own scopeTest behind the faked command.
import { describe, expect, it } from 'vitest';
import { fireEvent, render } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import ScopeCard from '../../renderer/src/screens/new-crawl/ScopeCard.svelte';
import { NewCrawlState } from '../../renderer/src/lib/new-crawl-state.svelte.ts';
import { defaultSettings, POLITENESS_PRESETS } from '../../core/api/settings.ts';
import { scopeTest } from '../../core/app/crawl-checks.ts';
import { fakeApi } from './fake-api.ts';

async function tester(url: string) {
  const { api } = fakeApi({ 'scope.test': (req) => scopeTest(req) });
  const form = new NewCrawlState(api, defaultSettings(), POLITENESS_PRESETS);
  form.seedsText = 'http://127.0.0.1:8080/docs/\n';
  form.settings.scope = 'prefix';
  form.scopeTestUrl = url;
  const view = render(ScopeCard, { form });
  await form.runScopeTest();
  flushSync();
  await fireEvent.click(view.getByText('all rules'));
  flushSync();
  return view;
}

describe('scope tester, a URL no rule accepted', () => {
  it('marks no rule and says under the list that no rule accepted it and why the scope did not take it', async () => {
    const view = await tester('http://127.0.0.1:8080/other/');
    expect(view.container.querySelectorAll('.trace li.deciding')).toHaveLength(0);
    const line = view.getByTestId('scope-not-accepted').textContent!.replace(/\s+/g, ' ').trim();
    expect(line).toMatch(/^No rule accepted it; the scope \(outside-prefix\) did not take it: not under http:\/\/127\.0\.0\.1:8080\/docs\//);
    expect(line).not.toContain('REJECT:');
  });

  it('says nothing of the kind when a rule decided', async () => {
    const view = await tester('http://127.0.0.1:8080/docs/a.html');
    expect(view.container.querySelectorAll('.trace li.deciding')).toHaveLength(1);
    expect(view.queryByTestId('scope-not-accepted')).toBeNull();
  });
});
