/**
 * Tabs that start from a browser profile (issue 36): a tab source wrapped so every tab it
 * opens gets the profile's cookies (`Network.setCookies`, HttpOnly and SameSite kept) and its
 * localStorage and sessionStorage (a script run before each document of the profile's origins
 * that fills in the keys the page does not have yet) before the tab loads anything. Wrapping the
 * source keeps the tab pool and the page capture unaware of profiles: one place, in the crawl's
 * start, decides whether tabs are primed. `state` is asked at each tab's opening: after a
 * logged-out pause the crawl's login reads the refreshed profile (crawl-login.ts `reload`), and
 * the tabs already open are primed again by fetch-browser.ts.
 */
import type { ProfileState } from '../api/profile-types.ts';
import type { CdpSession } from './cdp-session.ts';
import type { SourceTab, TabSource } from './tab-source.ts';

export function profileTabSource(inner: TabSource, state: () => ProfileState): TabSource {
  return {
    async open(): Promise<SourceTab> {
      const tab = await inner.open();
      try {
        await primeTab(tab.session, state());
      } catch (err) {
        await tab.close().catch(() => {});
        throw err;
      }
      return tab;
    },
    close: () => inner.close(),
  };
}

/** Put a profile's cookies and script storage into a fresh tab (on about:blank). */
export async function primeTab(session: CdpSession, state: ProfileState): Promise<void> {
  if (state.cookies.length > 0) {
    await session.send('Network.enable', {});
    await session.send('Network.setCookies', {
      cookies: state.cookies.map((c) => ({
        name: c.name,
        value: c.value,
        domain: c.domain,
        path: c.path,
        secure: c.secure,
        httpOnly: c.httpOnly,
        ...(c.sameSite ? { sameSite: c.sameSite } : {}),
        ...(c.expires >= 0 ? { expires: c.expires } : {}),
      })),
    });
  }
  const origins = state.origins.filter((o) => o.localStorage.length > 0 || o.sessionStorage.length > 0);
  if (origins.length > 0) {
    await session.send('Page.enable', {});
    await session.send('Page.addScriptToEvaluateOnNewDocument', { source: storageScript(origins) });
  }
}

/** The page script: for the document's origin, the profile's keys it lacks. */
function storageScript(origins: ProfileState['origins']): string {
  const data = JSON.stringify(Object.fromEntries(origins.map((o) => [o.origin, { l: o.localStorage, s: o.sessionStorage }])));
  return `(() => { try {
  const d = ${data}[location.origin]; if (!d) return;
  for (const [k, v] of d.l) if (localStorage.getItem(k) === null) localStorage.setItem(k, v);
  for (const [k, v] of d.s) if (sessionStorage.getItem(k) === null) sessionStorage.setItem(k, v);
} catch {} })();`;
}
