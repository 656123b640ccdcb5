/**
 * The shapes of a browser profile (issue 36): a named, saved browser state in the library that
 * a crawl starts from. Plain data, shared by the profile store, the crawl, the CLI and the app's
 * New crawl form (which lists profiles by name), so it lives in api.
 */

/**
 * One cookie as browsers keep it (the fields of CDP's Network.Cookie, the Netscape cookies.txt
 * columns and tough-cookie's Cookie all map onto these).
 */
export interface StoredCookie {
  name: string;
  value: string;
  /** Host for a host-only cookie (`example.com`), or `.example.com` for the domain and its subdomains. */
  domain: string;
  path: string;
  /** Seconds since the epoch; -1 for a session cookie. */
  expires: number;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

/** What a page's script storage held, per origin (localStorage and sessionStorage). */
export interface OriginStorage {
  origin: string;
  localStorage: [string, string][];
  sessionStorage: [string, string][];
}

/** The exported part of a profile (`state.json`): what a crawl without Chromium can use, and what a tab is primed with. */
export interface ProfileState {
  cookies: StoredCookie[];
  origins: OriginStorage[];
}

/** A profile as listed: never its cookies' values. */
export interface ProfileInfo {
  name: string;
  /** The URL the profile was made from (the login page). */
  url: string | null;
  createdAt: number;
  updatedAt: number;
  cookies: number;
  /** The sites (registrable domains or hosts) it holds cookies for. */
  sites: string[];
  /** A saved Chromium user-data-dir is there (IndexedDB, service workers, everything Chromium keeps). */
  browserData: boolean;
}

/** A profile name (its one home is setting-choices.ts, which the renderer may import). */
export { PROFILE_NAME } from './setting-choices.ts';
