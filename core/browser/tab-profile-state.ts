/**
 * What a crawl's tab holds of a login after a page (issue 36, `--save-profile` in browser and
 * auto modes): the browser's cookies (Network.getAllCookies: HttpOnly ones and those a script
 * set, which the HTTP fetcher's jar never sees) and the page origin's localStorage and
 * sessionStorage, in the profile's own shapes. Read in the tab before it is given back, so the
 * reading is of the page just captured; the crawl keeps the last one (crawl-login.ts).
 */
import type { OriginStorage, ProfileState, StoredCookie } from '../api/profile-types.ts';
import type { CdpSession } from './cdp-session.ts';
import { evaluate } from './page-behaviors.ts';

interface CdpCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  secure: boolean;
  httpOnly: boolean;
  session?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

const STORAGE = `(() => { try {
  return { origin: location.origin, l: Object.entries(localStorage), s: Object.entries(sessionStorage) };
} catch { return null; } })()`;

export async function readTabProfileState(session: CdpSession): Promise<ProfileState> {
  const got = (await session.send('Network.getAllCookies', {})) as { cookies?: CdpCookie[] } | undefined;
  const cookies: StoredCookie[] = (got?.cookies ?? []).map((c) => ({
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    expires: c.session || !(c.expires > 0) ? -1 : c.expires,
    secure: c.secure,
    httpOnly: c.httpOnly,
    ...(c.sameSite ? { sameSite: c.sameSite } : {}),
  }));
  const storage = await evaluate<{ origin: string; l: [string, string][]; s: [string, string][] } | null>(session, STORAGE).catch(() => null);
  const origins: OriginStorage[] = storage && /^https?:/.test(storage.origin) ? [{ origin: storage.origin, localStorage: storage.l, sessionStorage: storage.s }] : [];
  return { cookies, origins };
}
