/**
 * Making a browser profile by hand (`trove profile create`, issue 36): a visible Chromium on its
 * own user-data-dir opens the login page; the person logs in and closes the window. What the
 * browser holds is read while it runs (cookies of the whole browser, localStorage and
 * sessionStorage of each open page), on every page load and every half second, because once the
 * last window is closed Chromium exits and nothing can be asked any more: the last reading is the
 * profile. A reading that ends with no window open is not kept: when the last window goes,
 * Chromium drops the session cookies (the login, often) and still answers for a moment before it
 * exits. Each kept reading is handed to `onRead`, so the CLI can show what it holds (the person,
 * or a driving test, sees the login was read before closing the window). The user-data-dir
 * stays as it is (IndexedDB, service workers and everything else Chromium keeps), so the same
 * login can be opened again to refresh it.
 *
 * Why no final reading after the close: Chromium quits with its last window
 * (--keep-alive-for-test does not hold a headful browser), and even a browser kept up without
 * windows (--no-startup-window) has cleared the session cookies by the time the close is seen.
 *
 * `TROVE_PROFILE_CDP_PORT`: Chromium also listens for DevTools on that loopback port, so a test
 * (or a script) can drive the visible window (playwright-core's connectOverCDP) instead of a
 * person.
 */
import type { BrowserContext, Page } from 'playwright-core';
import type { OriginStorage, ProfileState, StoredCookie } from '../api/profile-types.ts';
import { TroveError } from '../errors.ts';

export interface ProfileCaptureOptions {
  executablePath: string;
  /** The Chromium user-data-dir (kept in the profile). */
  userDataDir: string;
  /** The login page. */
  url: string;
  /** Called once the window is open (the CLI says what to do). */
  onOpen?: () => void;
  /** Called with each reading that is kept (the profile so far). */
  onRead?: (state: ProfileState) => void;
  /** Extra DevTools port for a driving test (TROVE_PROFILE_CDP_PORT). */
  cdpPort?: number;
}

/** A display for a visible window: X11 or Wayland on Linux; other systems always have one. */
export function hasDisplay(env: NodeJS.ProcessEnv = process.env): boolean {
  if (process.platform !== 'linux') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

export const NO_DISPLAY_MESSAGE =
  'no display: trove profile create opens a visible browser window for you to log in; on a machine without a screen run it under Xvfb: xvfb-run -a trove profile create NAME --url LOGIN_URL';

/** Open the window, wait for the person to close it, and return what the browser held. */
export async function captureProfile(opts: ProfileCaptureOptions): Promise<ProfileState> {
  if (!hasDisplay()) throw new TroveError('PROFILE_NO_DISPLAY', NO_DISPLAY_MESSAGE);
  const { chromium } = await import('playwright-core');
  const args = ['--no-first-run', '--no-default-browser-check', '--disable-sync', ...(opts.cdpPort ? [`--remote-debugging-port=${opts.cdpPort}`, '--remote-debugging-address=127.0.0.1'] : [])];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(opts.userDataDir, { executablePath: opts.executablePath, headless: false, viewport: null, args });
  } catch (err) {
    throw new TroveError('BROWSER_LAUNCH_FAILED', `could not start ${opts.executablePath}: ${(err as Error).message.split('\n')[0]}`, {}, { cause: err });
  }
  let last: ProfileState = { cookies: [], origins: [] };
  let reading = false;
  const read = async (): Promise<void> => {
    if (reading) return;
    reading = true;
    try {
      const got = await readState(context, last);
      // Read while the last window closed: its session cookies may already be gone.
      if (context.pages().length === 0) return;
      last = got;
      opts.onRead?.(last);
    } catch {
      /* the browser is going away: keep the last reading */
    } finally {
      reading = false;
    }
  };
  const watch = (page: Page) => page.on('load', () => void read());
  context.on('page', watch);
  const closed = new Promise<void>((resolve) => context.on('close', () => resolve()));
  const page = context.pages()[0] ?? (await context.newPage());
  watch(page);
  await page.goto(opts.url).catch(() => {});
  opts.onOpen?.();
  const timer = setInterval(() => void read(), 500);
  await closed;
  clearInterval(timer);
  return last;
}

async function readState(context: BrowserContext, previous: ProfileState): Promise<ProfileState> {
  const cookies: StoredCookie[] = (await context.cookies()).map((c) => ({
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    expires: c.expires,
    secure: c.secure,
    httpOnly: c.httpOnly,
    sameSite: c.sameSite,
  }));
  const origins = new Map<string, OriginStorage>(previous.origins.map((o) => [o.origin, o]));
  for (const p of context.pages()) {
    const origin = URL.parse(p.url())?.origin;
    if (!origin || origin === 'null') continue;
    const got = await p.evaluate(() => ({
      l: Object.entries(localStorage) as [string, string][],
      s: Object.entries(sessionStorage) as [string, string][],
    })).catch(() => null);
    if (got) origins.set(origin, { origin, localStorage: got.l, sessionStorage: got.s });
  }
  return { cookies, origins: [...origins.values()] };
}
