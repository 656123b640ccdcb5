/**
 * The crawl's cookie jar (fetch/cookie-jar.ts over tough-cookie) and the Netscape cookies.txt
 * format (formats/cookies-txt.ts): which cookies a crawler's request carries, as a browser would
 * send them (domain, path, Secure, expiry, SameSite by how the URL was reached), the cookies a
 * response sets, and the file format wget, curl and yt-dlp share.
 */
import { describe, expect, it } from 'vitest';
import type { StoredCookie } from '../../core/api/profile-types.ts';
import { createCookieJar, sameSiteContext } from '../../core/fetch/cookie-jar.ts';
import { formatCookiesTxt, parseCookiesTxt } from '../../core/formats/cookies-txt.ts';

const c = (o: Partial<StoredCookie> & { name: string }): StoredCookie => ({ value: 'v', domain: 'example.com', path: '/', expires: -1, secure: false, httpOnly: false, ...o });

describe('cookies.txt', () => {
  it('reads curl/wget/yt-dlp files, #HttpOnly_ lines included, and writes them back', () => {
    const text = '# Netscape HTTP Cookie File\n\n#HttpOnly_.example.com\tTRUE\t/\tTRUE\t2000000000\tsid\ta\tb\nwww.example.com\tFALSE\t/app\tFALSE\t0\tpref\tx\n# a comment\n';
    const cookies = parseCookiesTxt(text);
    expect(cookies).toEqual([
      { name: 'sid', value: 'a\tb', domain: '.example.com', path: '/', expires: 2000000000, secure: true, httpOnly: true },
      { name: 'pref', value: 'x', domain: 'www.example.com', path: '/app', expires: -1, secure: false, httpOnly: false },
    ]);
    expect(parseCookiesTxt(formatCookiesTxt(cookies))).toEqual(cookies);
  });

  it('names the bad line', () => {
    expect(() => parseCookiesTxt('# x\nexample.com\tMAYBE\t/\tFALSE\t0\ta\tb\n', 'c.txt')).toThrow(/c\.txt line 2: the subdomains and secure fields must be TRUE or FALSE/);
    expect(() => parseCookiesTxt('example.com\tTRUE\t/\tFALSE\tsoon\ta\tb\n')).toThrow(/line 1: expires is not a number/);
  });
});

describe('the crawl cookie jar', () => {
  it('matches domain, path, Secure and expiry', () => {
    const jar = createCookieJar([
      c({ name: 'host', domain: 'example.com' }),
      c({ name: 'dom', domain: '.example.com' }),
      c({ name: 'deep', path: '/a/' }),
      c({ name: 'sec', secure: true }),
      c({ name: 'old', expires: 1000 }),
    ]);
    const h = (url: string) => jar.header({ url, via: null, hopsPath: '' });
    expect(h('https://example.com/a/x')).toBe('deep=v; host=v; dom=v; sec=v');
    expect(h('http://example.com/')).toBe('host=v; dom=v');
    expect(h('http://www.example.com/a/')).toBe('dom=v');
    expect(h('http://other.org/')).toBeNull();
    expect(jar.cookies().map((x) => x.name)).not.toContain('old');
  });

  it('sends SameSite cookies as a browser would: same-site always, Lax on a cross-site link, None only on a cross-site embed', () => {
    const jar = createCookieJar([c({ name: 's', sameSite: 'Strict' }), c({ name: 'l', sameSite: 'Lax' }), c({ name: 'n', sameSite: 'None', secure: true })]);
    const names = (via: string | null, hopsPath: string) => (jar.header({ url: 'https://example.com/p', via, hopsPath }) ?? '').split('; ').map((p) => p.split('=')[0]).sort();
    expect(names(null, '')).toEqual(['l', 'n', 's']);
    expect(names('https://www.example.com/', 'LE')).toEqual(['l', 'n', 's']);
    expect(names('https://other.org/', 'L')).toEqual(['l', 'n']);
    expect(names('https://other.org/', 'LE')).toEqual(['n']);
    expect(sameSiteContext({ url: 'https://example.com/', via: 'https://other.org/', hopsPath: 'LR' })).toBe('lax');
  });

  it('keeps what responses set, and forgets it on reset', () => {
    const jar = createCookieJar();
    const req = { url: 'http://127.0.0.1:8080/login', via: null, hopsPath: '' };
    jar.keep(req, [['Set-Cookie', 'sid=1; Path=/; HttpOnly'], ['Content-Type', 'text/html'], ['set-cookie', 'gone=1; Max-Age=0']]);
    expect(jar.header({ ...req, url: 'http://127.0.0.1:9/x' })).toBe('sid=1');
    expect(jar.cookies()).toEqual([{ name: 'sid', value: '1', domain: '127.0.0.1', path: '/', expires: -1, secure: false, httpOnly: true }]);
    jar.reset([c({ name: 'z', domain: '127.0.0.1' })]);
    expect(jar.header(req)).toBe('z=v');
  });
});
