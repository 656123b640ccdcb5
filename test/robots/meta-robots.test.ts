import { describe, expect, it } from 'vitest';
import { parseRobotsDirectives } from '../../core/robots/meta-robots.ts';

const none = { nofollow: false, noindex: false, none: false };

describe('parseRobotsDirectives', () => {
  it.each([
    ['nofollow', { ...none, nofollow: true }],
    ['NOINDEX, NoFollow', { nofollow: true, noindex: true, none: false }],
    ['noindex,follow', { ...none, noindex: true }],
    ['none', { nofollow: true, noindex: true, none: true }],
    ['all', none],
    ['index, follow, noarchive, max-snippet: 20, max-image-preview:large', none],
    ['  nofollow  ', { ...none, nofollow: true }],
    ['', none],
    [',,,', none],
    ['nofollowx, no follow', none],
    ['unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow', { ...none, nofollow: true }],
  ])('%j', (value, expected) => {
    expect(parseRobotsDirectives(value)).toEqual(expected);
    expect(parseRobotsDirectives(value, 'Trove')).toEqual(expected);
  });

  it('X-Robots-Tag scoped to another agent does not apply to us', () => {
    expect(parseRobotsDirectives('googlebot: nofollow', 'Trove')).toEqual(none);
    expect(parseRobotsDirectives('googlebot: nofollow')).toEqual(none);
  });

  it('X-Robots-Tag scoped to our agent applies, case-insensitively', () => {
    expect(parseRobotsDirectives('trove: nofollow', 'Trove')).toEqual({ ...none, nofollow: true });
    expect(parseRobotsDirectives('TROVE:none', 'trove')).toEqual({ nofollow: true, noindex: true, none: true });
  });

  it('a scope runs until the next one; unscoped directives before it apply to all', () => {
    const value = 'noindex, googlebot: nofollow, noarchive, trove: nofollow';
    expect(parseRobotsDirectives(value, 'Trove')).toEqual({ nofollow: true, noindex: true, none: false });
    expect(parseRobotsDirectives(value, 'otherbot')).toEqual({ ...none, noindex: true });
    expect(parseRobotsDirectives('otherbot: noindex, nofollow', 'Trove')).toEqual(none);
    expect(parseRobotsDirectives('otherbot: noindex, nofollow', 'otherbot')).toEqual({ nofollow: true, noindex: true, none: false });
  });
});
