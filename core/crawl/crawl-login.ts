/**
 * The login a crawl carries (issue 36): the cookies of a browser profile (`--profile`) and of a
 * cookies.txt (`--cookies`), in one RFC 6265 jar the HTTP fetcher asks before each request and
 * fills from each response; the profile's whole state for the browser's tabs; and, at the end,
 * the refresh of the profile (`--save-profile`). The jar lives in memory only: cookies never go
 * into the crawl directory (a resume reads the profile and the file again, so a refreshed
 * profile is what a resume after a logged-out pause uses).
 */
import fs from 'node:fs';
import type { CrawlNote } from '../api/error-codes.ts';
import type { ProfileState } from '../api/profile-types.ts';
import type { CrawlSettings } from '../api/settings.ts';
import { TroveError } from '../errors.ts';
import { createCookieJar, type CrawlCookieJar } from '../fetch/cookie-jar.ts';
import { parseCookiesTxt } from '../formats/cookies-txt.ts';
import { defaultLibraryDir, ProfileStore, profilesDirOf } from '../storage/profile-store.ts';

export interface CrawlLogin {
  /** null when the crawl carries no login (no cookies are sent or kept, as before). */
  jar: CrawlCookieJar | null;
  /** The profile's state, for the tabs of a browser crawl; null without --profile. */
  profile: ProfileState | null;
  notes: CrawlNote[];
  /** The page the profile was made from (its login page), if known. */
  loginUrl: string | null;
  /** Read the profile and the cookies file again into the jar (a resume after a logged-out pause). */
  reload(): void;
  /** --save-profile: the profile keeps the jar's cookies (called when the crawl ends). */
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
  if (!profile && fileCookies.length === 0 && !settings.cookiesFile) return { jar: null, profile: null, notes: [], loginUrl: null, reload: () => {}, save: () => null };
  const jar = createCookieJar([...(profile?.cookies ?? []), ...fileCookies]);
  const from = [settings.profile ? `profile ${settings.profile}` : '', settings.cookiesFile ? settings.cookiesFile : ''].filter(Boolean).join(' and ');
  const sites = [...new Set(jar.cookies().map((c) => c.domain.replace(/^\./, '')))];
  const notes: CrawlNote[] = [{ code: 'LOGIN_LOADED', message: `logged in: ${jar.size()} cookies from ${from}${sites.length ? ` for ${sites.slice(0, 5).join(', ')}${sites.length > 5 ? ` and ${sites.length - 5} more` : ''}` : ''}` }];
  return {
    jar,
    profile,
    notes,
    loginUrl: settings.profile ? (store.list().find((p) => p.name === settings.profile)?.url ?? null) : null,
    reload: () => {
      const fresh = settings.profile ? store.state(settings.profile).cookies : [];
      jar.reset([...fresh, ...(settings.cookiesFile ? readCookiesFile(settings.cookiesFile) : [])]);
    },
    save: () => {
      if (!settings.saveProfile || !settings.profile) return null;
      // The tabs' storage is kept as it was; the cookies are the jar's (the profile's, renewed and added to by the site).
      store.save(settings.profile, { cookies: jar.cookies(), origins: store.state(settings.profile).origins });
      return { code: 'PROFILE_SAVED', message: `profile ${settings.profile} refreshed: ${jar.size()} cookies` };
    },
  };
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
