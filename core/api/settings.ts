/**
 * Crawl settings: the one shape the CLI, the desktop app and a crawl directory's saved
 * `crawl.json` share, as the settings registry (settings-registry.ts) defines it: the type and
 * the defaults are derived from its rows. Plain data only (no node:* imports) so the renderer
 * can import it.
 */

import { CAPTURE_MODE_NAMES, DEDUP_MODE_NAMES, POLITENESS_PRESET_NAMES, POLITENESS_PRESETS, ROBOTS_POLICY_NAMES, SCOPE_PRESET_NAMES, SETTING_ROWS, type SettingsShape } from './settings-registry.ts';

// The named choices and presets live with their rows in the registry; re-exported for their readers.
export { CAPTURE_MODE_NAMES, DEDUP_MODE_NAMES, POLITENESS_PRESET_NAMES, POLITENESS_PRESETS, ROBOTS_POLICY_NAMES, SCOPE_PRESET_NAMES };
export { DEFAULT_USER_AGENT, TROVE_VERSION } from './trove-version.ts';
export type { HostOverride, ScopeRuleConfig } from './setting-choices.ts';

export type ScopePreset = (typeof SCOPE_PRESET_NAMES)[number];
export type RobotsPolicy = (typeof ROBOTS_POLICY_NAMES)[number];
export type PolitenessPreset = (typeof POLITENESS_PRESET_NAMES)[number];
export type DedupMode = (typeof DEDUP_MODE_NAMES)[number];
export { captureModeOf, type CaptureMode } from './capture-mode.ts';
/** Whether `value` is one of `names` (narrowing it). */
export function isOneOf<T extends string>(names: readonly T[], value: unknown): value is T {
  return (names as readonly unknown[]).includes(value);
}

/**
 * Every crawl setting, as the rows of the registry (settings-registry.ts) make it: its keys,
 * types and nesting (`browser.tabs` is `browser: { tabs }`) come from there, never listed here.
 */
export interface CrawlSettings extends SettingsShape {}

/** Browser capture: seeds and pages are loaded in Chromium tabs, everything else by HTTP. */
export type BrowserSettings = CrawlSettings['browser'];

/** Heritrix's retry policy for long crawls: 30 tries, 900 s apart. */
export const HERITRIX_RETRIES = { maxRetries: 30, retryDelayS: 900, retryBackoff: 'fixed' } satisfies Partial<CrawlSettings>;

/** Every setting at its registry default; a nested group's defaults make its object. */
export function defaultSettings(): CrawlSettings {
  const out: Record<string, unknown> = {};
  for (const row of SETTING_ROWS) {
    if (row.default === undefined) continue;
    const value = Array.isArray(row.default) ? [...row.default] : row.default;
    const [group, sub] = row.key.split('.') as [string, string | undefined];
    if (sub === undefined) out[group] = value;
    else out[group] = { ...(out[group] as object | undefined), [sub]: value };
  }
  return out as unknown as CrawlSettings;
}
