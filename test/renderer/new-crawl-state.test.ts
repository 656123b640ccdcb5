// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { NewCrawlState } from '../../renderer/src/lib/new-crawl-state.svelte.ts';
import { defaultSettings, POLITENESS_PRESETS } from '../../core/api/settings.ts';
import { checkCrawl, scopeTest } from '../../core/app/crawl-checks.ts';
import { fakeApi } from './fake-api.ts';

function setup() {
  const fake = fakeApi({
    'crawl.check': (req) => {
      const { valid, seeds, urls, issues, scopeRules } = checkCrawl(req);
      return { valid, seeds, urls, issues, scopeRules };
    },
    'scope.test': (req) => scopeTest(req),
    'crawl.start': () => ({ id: 'new' }),
  });
  return { ...fake, form: new NewCrawlState(fake.api, defaultSettings(), POLITENESS_PRESETS) };
}

describe('NewCrawlState', () => {
  it('checks seeds and settings in the core and lists issues by field', async () => {
    const { form } = setup();
    form.seedsText = 'http://example.org/\nnope';
    form.excludeText = '(bad';
    await form.runCheck();
    expect(form.check?.valid).toBe(false);
    expect(form.issueFor('seeds')).toMatch(/line 2/);
    expect(form.issueFor('exclude')).toMatch(/regular expression/);
    form.seedsText = 'http://example.org/';
    form.excludeText = '/calendar/';
    await form.runCheck();
    expect(form.check?.valid).toBe(true);
    expect(form.canStart).toBe(true);
  });

  it('sends plain data (no proxies) with the line lists applied', async () => {
    const { form, calls } = setup();
    form.seedsText = 'http://example.org/';
    form.includeText = 'a\n\n b ';
    form.candidateText = 'Googlebot, bingbot';
    form.settings.overrides.push({ host: 'static.example.org', perHost: 2 });
    await form.runCheck();
    const payload = calls.at(-1)!.payload as { settings: { include: string[]; candidateAgents: string[]; overrides: unknown[] } };
    expect(payload.settings.include).toEqual(['a', 'b']);
    expect(payload.settings.candidateAgents).toEqual(['Googlebot', 'bingbot']);
    expect(payload.settings.overrides).toEqual([{ host: 'static.example.org', perHost: 2 }]);
  });

  it('applies politeness presets and notices customised numbers', () => {
    const { form } = setup();
    form.applyPoliteness('fast');
    expect(form.settings).toMatchObject({ politeness: 'fast', ...POLITENESS_PRESETS.fast });
    expect(form.customized).toBe(false);
    form.settings.minDelayMs = 250;
    expect(form.customized).toBe(true);
  });

  it('shows the deciding scope rule for a typed URL', async () => {
    const { form } = setup();
    form.seedsText = 'http://example.org/docs/';
    form.excludeText = '/calendar/';
    form.scopeTestUrl = 'example.org/docs/calendar/1';
    await form.runScopeTest();
    expect(form.scopeResult?.decision).toMatchObject({ decision: 'REJECT', rule: 'exclude-regex' });
  });

  it('starts with the checked seeds and custom robots text', async () => {
    const { form, calls } = setup();
    form.name = 'Mine';
    form.seedsText = 'http://Example.org/\nhttp://example.org/';
    form.settings.robots = 'custom';
    form.robotsText = 'User-agent: *\nDisallow: /x\n';
    expect(await form.start()).toBe('new');
    const start = calls.find((c) => c.name === 'crawl.start')!.payload as { name: string; settings: { seeds: string[] }; customRobots: string };
    expect(start).toMatchObject({ name: 'Mine', settings: { seeds: ['http://example.org/'] }, customRobots: 'User-agent: *\nDisallow: /x\n' });
  });
});
