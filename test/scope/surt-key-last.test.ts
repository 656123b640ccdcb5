/**
 * surtKey remembers its last key (a capture's records share one target URI): a remembered key
 * must be the key surt() gives, whatever came before it (another URL, a POST of the same URL).
 */
import { describe, expect, it } from 'vitest';
import { surt, surtKey } from '../../core/scope/surt.ts';

describe('surtKey with its last key remembered', () => {
  it('gives what surt gives, call after call, for GETs, POSTs and other URLs in any order', () => {
    const a = 'http://WWW.Example.com:80/a/./b/?z=1&a=2#frag';
    const b = 'https://xn--bcher-kva.example/%7Euser/?q=a+b%20c';
    const calls: [string, { method?: string; postQuery?: string }][] = [
      [a, {}],
      [a, {}],
      [a, { method: 'GET' }],
      [a, { method: 'POST', postQuery: 'x=1' }],
      [a, { method: 'POST', postQuery: 'x=2' }],
      [a, {}],
      [b, {}],
      [a, { method: 'post' }],
      [b, { method: 'PUT' }],
      [b, {}],
    ];
    // Worked out fresh: after a key of another URL, nothing of `url` is remembered.
    const fresh = (url: string, opts: { method?: string; postQuery?: string }) => {
      surtKey('http://another.example/');
      return surtKey(url, opts);
    };
    const got = calls.map(([url, opts]) => surtKey(url, opts));
    expect(got).toEqual(calls.map(([url, opts]) => fresh(url, opts)));
    expect(got[0]).toBe(surt(a));
    expect(got[6]).toBe(surt(b));
    expect(new Set(got).size).toBe(6); // a, a POST x=1, a POST x=2, b, a POST, b PUT
    expect(surtKey('')).toBe('-');
    expect(surtKey(null)).toBe('-');
  });
});
