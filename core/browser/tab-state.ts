/**
 * What a tab's browser holds, as a profile keeps it (issue 36): every cookie of its browser
 * session (`Network.getAllCookies`, HttpOnly ones included) and the localStorage and
 * sessionStorage of the page it shows. The app's Record window saves its session as a profile
 * with this ("Save this session as a profile"), and a browser crawl's `--save-profile` reads each
 * tab with it after a page, before the tab is given back (crawl-login.ts keeps the last reading).
 */
import type { ProfileState, StoredCookie } from '../api/profile-types.ts';
import type { CdpSession } from './cdp-session.ts';

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

export async function readTabState(session: CdpSession): Promise<{ state: ProfileState; url: string | null }> {
  const got = (await session.send('Network.getAllCookies', {})) as { cookies?: CdpCookie[] } | undefined;
  const stored: StoredCookie[] = (got?.cookies ?? []).map((c) => ({
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    expires: c.session || !(c.expires > 0) ? -1 : c.expires,
    secure: c.secure,
    httpOnly: c.httpOnly,
    ...(c.sameSite ? { sameSite: c.sameSite } : {}),
  }));
  const page = (await session
    .send('Runtime.evaluate', {
      expression: 'JSON.stringify({ url: location.href, origin: location.origin, l: Object.entries(localStorage), s: Object.entries(sessionStorage) })',
      returnByValue: true,
    })
    .catch(() => null)) as { result?: { value?: string } } | null;
  const p = page?.result?.value ? (JSON.parse(page.result.value) as { url: string; origin: string; l: [string, string][]; s: [string, string][] }) : null;
  const origins = p && /^https?:/.test(p.origin) ? [{ origin: p.origin, localStorage: p.l, sessionStorage: p.s }] : [];
  return { state: { cookies: stored, origins }, url: p?.url ?? null };
}
