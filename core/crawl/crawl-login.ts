/**
 * The login a crawl carries (issue 36): the cookies of a browser profile (`--profile`) and of a
 * cookies.txt (`--cookies`), in one RFC 6265 jar the HTTP fetcher asks before each request and
 * fills from each response; the profile's whole state for the browser's tabs; and, at the end,
 * the refresh of the profile (`--save-profile`): the jar's cookies, overlaid, in a browser
 * crawl, with what the tabs held after their last page (cookies the pages' scripts set, the
 * origins' localStorage and sessionStorage: browser/tab-state.ts). The jar lives in memory only: cookies never go
 * into the crawl directory (a resume reads the profile and the file again, so a refreshed
 * profile is what a resume after a logged-out pause uses).
 */
import fs from 'node:fs';
import type { CrawlNote } from '../api/error-codes.ts';
import type { ProfileState, StoredCookie } from '../api/profile-types.ts';
import type { CrawlSettings } from '../api/settings.ts';
import { TroveError } from '../errors.ts';
import { createCookieJar, type CrawlCookieJar } from '../fetch/cookie-jar.ts';
import { parseCookiesTxt } from '../formats/cookies-txt.ts';
import { defaultLibraryDir, ProfileStore, profilesDirOf } from '../storage/profile-store.ts';

export interface CrawlLogin {
  /** null when the crawl carries no login (no cookies are sent or kept, as before). */
  jar: CrawlCookieJar | null;
  /** The profile's state, for the tabs of a browser crawl; null without --profile. Read again by reload. */
  profile: ProfileState | null;
  /** How many times reload read the profile again (tabs primed before then are primed again: fetch-browser.ts). */
  generation: number;
  notes: CrawlNote[];
  /** The page the profile was made from (its login page), if known. */
  loginUrl: string | null;
  /** Read the profile and the cookies file again into the jar (a resume after a logged-out pause). */
  reload(): void;
  /** --save-profile with --profile: whether the tabs' state is wanted (observeBrowser). */
  refreshesProfile: boolean;
  /** A tab's state after a page (browser and auto modes): the latest reading goes into the saved profile. */
  observeBrowser(state: ProfileState): void;
  /** --save-profile: the profile keeps the jar's cookies and the tabs' state (called when the crawl ends). */
  save(): CrawlNote | null;
}

/** Where a crawl finds profiles when its caller does not say: the CLI's library. */
export function defaultProfilesDir(): string {
  return profilesDirOf(defaultLibraryDir());
}

export function openCrawlLogin(settings: CrawlSettings, profilesDir: string = defaultProfilesDir()): CrawlLogin {
  const store = new ProfileStore(profilesDir);
  const profile = settings.profile ? store.state(settings.profile) : null;
  const fileCookies = settings.cookiesFile ? readCookiesFile(settings.cookiesFile) : [];
  if (!profile && fileCookies.length === 0 && !settings.cookiesFile) return { jar: null, profile: null, generation: 0, notes: [], loginUrl: null, reload: () => {}, refreshesProfile: false, observeBrowser: () => {}, save: () => null };
  const jar = createCookieJar([...(profile?.cookies ?? []), ...fileCookies]);
  const from = [settings.profile ? `profile ${settings.profile}` : '', settings.cookiesFile ? settings.cookiesFile : ''].filter(Boolean).join(' and ');
  const sites = [...new Set(jar.cookies().map((c) => c.domain.replace(/^\./, '')))];
  const notes: CrawlNote[] = [{ code: 'LOGIN_LOADED', message: `logged in: ${jar.size()} cookies from ${from}${sites.length ? ` for ${sites.slice(0, 5).join(', ')}${sites.length > 5 ? ` and ${sites.length - 5} more` : ''}` : ''}` }];
  let seen: ProfileState | null = null;
  const login: CrawlLogin = {
    jar,
    profile,
    generation: 0,
    refreshesProfile: Boolean(settings.saveProfile && settings.profile),
    observeBrowser: (state) => {
      // Cookies are the browser's whole jar (the last reading has them all); storage is per origin, kept from every page.
      const origins = new Map((seen?.origins ?? []).map((o) => [o.origin, o]));
      for (const o of state.origins) origins.set(o.origin, o);
      seen = { cookies: state.cookies, origins: [...origins.values()] };
    },
    notes,
    loginUrl: settings.profile ? (store.list().find((p) => p.name === settings.profile)?.url ?? null) : null,
    reload: () => {
      const fresh = settings.profile ? store.state(settings.profile) : null;
      jar.reset([...(fresh?.cookies ?? []), ...(settings.cookiesFile ? readCookiesFile(settings.cookiesFile) : [])]);
      if (fresh) {
        login.profile = fresh;
        login.generation++;
      }
    },
    save: () => {
      if (!settings.saveProfile || !settings.profile) return null;
      // The jar's cookies (the profile's, renewed and added to by the site over HTTP), the tabs' over them where both have one.
      const key = (c: StoredCookie) => `${c.name}\t${c.domain.replace(/^\./, '')}\t${c.path}`;
      const cookies = new Map(jar.cookies().map((c) => [key(c), c]));
      for (const c of seen?.cookies ?? []) cookies.set(key(c), c);
      const origins = new Map(store.state(settings.profile).origins.map((o) => [o.origin, o]));
      for (const o of seen?.origins ?? []) origins.set(o.origin, o);
      store.save(settings.profile, { cookies: [...cookies.values()], origins: [...origins.values()] });
      const tabs = seen ? ` (with the browser's, and storage of ${seen.origins.length} origin${seen.origins.length === 1 ? '' : 's'})` : '';
      return { code: 'PROFILE_SAVED', message: `profile ${settings.profile} refreshed: ${cookies.size} cookies${tabs}` };
    },
  };
  return login;
}

function readCookiesFile(file: string) {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new TroveError('COOKIES_FILE_INVALID', `cannot read --cookies ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseCookiesTxt(text, file);
}
