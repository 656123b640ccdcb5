/**
 * Which Chromium a browser crawl drives: the one named (--browser-path), then $TROVE_CHROMIUM,
 * then the usual install paths of Debian/Ubuntu, Fedora, Arch, snap, macOS and Windows. Without
 * one, an error that lists every path tried and how to install Chromium. (The desktop app does
 * not come here: it drives Electron's own Chromium.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { TroveError } from '../errors.ts';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];

const FIXED = [
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
  'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe',
];

function executable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The paths looked at, in order (for the error message and tests). */
export function chromiumCandidates(opts: { path?: string; env?: NodeJS.ProcessEnv } = {}): string[] {
  const env = opts.env ?? process.env;
  const out: string[] = [];
  if (opts.path) return [opts.path];
  if (env.TROVE_CHROMIUM) out.push(env.TROVE_CHROMIUM);
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const d of ['/usr/bin', '/usr/local/bin', '/snap/bin', ...dirs]) for (const n of NAMES) out.push(path.join(d, n));
  out.push(...FIXED);
  return [...new Set(out)];
}

/**
 * The first executable candidate. A path given explicitly (--browser-path) is the only one
 * tried: a typo there must not silently pick another browser.
 */
export function findChromium(opts: { path?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const tried = chromiumCandidates(opts);
  const found = tried.find(executable);
  if (found) return found;
  const shown = tried.length > 12 ? [...tried.slice(0, 12), `… and ${tried.length - 12} more`] : tried;
  throw new TroveError(
    'BROWSER_NOT_FOUND',
    `no usable Chromium for --browser; tried:\n  ${shown.join('\n  ')}\n` +
      'Install one (Debian/Ubuntu: sudo apt install chromium), or name it with --browser-path or TROVE_CHROMIUM.',
    { tried },
  );
}
