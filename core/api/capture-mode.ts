/**
 * The crawl's capture mode read from its settings: the `capture` choice, with the older
 * `browser.enabled` (`--browser`) as its alias. Its own file, not settings.ts: settings.ts handles
 * every setting alike and names none (test/api/settings-registry.test.ts). Plain data, no node:*:
 * the renderer imports it.
 */
import type { CAPTURE_MODE_NAMES } from './setting-choices.ts';
import type { SettingsShape } from './settings-registry.ts';

export type CaptureMode = (typeof CAPTURE_MODE_NAMES)[number];

/**
 * How the crawl fetches pages: `capture`, or the older `browser.enabled` (`--browser`,
 * and what --browser-tabs and --browser-path imply) read as `browser` when `capture` is left at
 * `http`, so old configs, flags and stored crawls keep their mode.
 */
export function captureModeOf(settings: Pick<SettingsShape, 'browser' | 'capture'>): CaptureMode {
  if (settings.capture && settings.capture !== 'http') return settings.capture;
  return settings.browser?.enabled ? 'browser' : 'http';
}

