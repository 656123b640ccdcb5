/**
 * The named choices (scope presets, robots policies, politeness presets) are listed once, in
 * core/api/settings.ts; the CLI's option choices, the validators and the renderer's radio groups
 * follow that list, in its order.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { POLITENESS_PRESET_NAMES, POLITENESS_PRESETS, ROBOTS_POLICY_NAMES, SCOPE_PRESET_NAMES } from '../../core/api/settings.ts';
import { addCrawlOptions } from '../../core/cli/crawl-options.ts';
import { settingsProblems } from '../../core/crawl/validate-settings.ts';
import { defaultSettings } from '../../core/api/settings.ts';
import { POLITENESS, ROBOTS_POLICIES, SCOPE_PRESETS } from '../../renderer/src/lib/explain.ts';

describe('named choices', () => {
  it('the renderer lists every core choice, in core order', () => {
    expect(SCOPE_PRESETS.map((c) => c.id)).toEqual([...SCOPE_PRESET_NAMES]);
    expect(ROBOTS_POLICIES.map((c) => c.id)).toEqual([...ROBOTS_POLICY_NAMES]);
    expect(POLITENESS.map((c) => c.id)).toEqual([...POLITENESS_PRESET_NAMES]);
    expect(Object.keys(POLITENESS_PRESETS)).toEqual([...POLITENESS_PRESET_NAMES]);
  });

  it('the CLI offers the same choices', () => {
    const cmd = addCrawlOptions(new Command());
    const choices = (flag: string) => cmd.options.find((o) => o.long === flag)?.argChoices;
    expect(choices('--scope')).toEqual([...SCOPE_PRESET_NAMES]);
    expect(choices('--robots')).toEqual([...ROBOTS_POLICY_NAMES]);
    expect(choices('--politeness')).toEqual([...POLITENESS_PRESET_NAMES]);
  });

  it('validation names the same choices', () => {
    const problems = settingsProblems({ ...defaultSettings(), seeds: ['http://example.com/'], scope: 'site' as never, robots: 'maybe' as never }, { requireSeeds: true });
    expect(problems).toContainEqual({ key: 'scope', message: `must be one of ${SCOPE_PRESET_NAMES.join(', ')}, not "site"` });
    expect(problems.find((p) => p.key === 'robots')?.message).toContain(ROBOTS_POLICY_NAMES.join(', '));
  });
});
