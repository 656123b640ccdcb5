import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT } from '../../core/api/settings.ts';
import { isTroveError } from '../../core/errors.ts';
import { parseRobots } from '../../core/robots/parse-robots.ts';
import { agentToken, evaluateRobots, type RobotsInput } from '../../core/robots/robots-policy.ts';
import { robotsStateFromFetch, type RobotsState } from '../../core/robots/robots-state.ts';

const SITE = [
  'User-agent: *', // 1
  'Disallow: /private', // 2
  '', // 3
  'User-agent: Trove', // 4
  'Disallow: /no-trove', // 5
  '', // 6
  'User-agent: Googlebot', // 7
  'Allow: /private/google', // 8
  'Disallow: /private/nothing', // 9
  '', // 10
  'User-agent: bingbot', // 11
  'Disallow: /', // 12
].join('\n');

const rules: RobotsState = robotsStateFromFetch({ status: 200, body: Buffer.from(SITE), fetchedAt: 0 }, { ttlMs: 1000 });
const UA = DEFAULT_USER_AGENT;
const GOOGLEBOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

function input(url: string, extra: Partial<RobotsInput> = {}): RobotsInput {
  return { state: rules, url: `http://example.com${url}`, userAgent: UA, candidateAgents: [], masquerade: false, ...extra };
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isTroveError(err) ? err.code : `untyped: ${String(err)}`;
  }
  return undefined;
}

describe('agentToken', () => {
  it.each([
    [DEFAULT_USER_AGENT, 'Trove'],
    ['Mozilla/5.0 (compatible; Trove/0.1.0; +url)', 'Trove'],
    ['Trove', 'Trove'],
    ['Trove/0.1.0 (+https://example.org/bot)', 'Trove'],
    [GOOGLEBOT_UA, 'Googlebot'],
    ['MJ12bot/v1.4.8 (http://mj12bot.com/)', 'MJ12bot'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36', 'AppleWebKit'],
    ['Mozilla/5.0', 'Mozilla'],
  ])('%s → %s', (ua, token) => {
    expect(agentToken(ua)).toBe(token);
  });

  it.each(['', '   ', '(compatible)', '/1.0'])('%j has no token: ROBOTS_AGENT_INVALID', (ua) => {
    expect(code(() => agentToken(ua))).toBe('ROBOTS_AGENT_INVALID');
  });
});

describe('policy obey', () => {
  it('uses our named group, and says which rule decided', () => {
    const v = evaluateRobots('obey', input('/no-trove/x'));
    expect(v).toEqual({
      allowed: false,
      policy: 'obey',
      agent: 'Trove',
      rule: { directive: 'disallow', pattern: '/no-trove', line: 5 },
      group: 'Trove',
      reason: 'disallowed by "Disallow: /no-trove" (line 5) for group Trove',
    });
    // Our group replaces *, it does not add to it.
    expect(evaluateRobots('obey', input('/private')).allowed).toBe(true);
  });

  it('falls back to * for an agent without a group', () => {
    const v = evaluateRobots('obey', input('/private/a', { userAgent: 'OtherBot/1.0' }));
    expect(v.allowed).toBe(false);
    expect(v.agent).toBe('OtherBot');
    expect(v.reason).toBe('disallowed by "Disallow: /private" (line 2) for group *');
    expect(evaluateRobots('obey', input('/public', { userAgent: 'OtherBot' })).reason).toBe('allowed: no rule matches in group *');
  });

  it('no group at all: allowed, and the reason says so', () => {
    const state = robotsStateFromFetch({ status: 200, body: Buffer.from('User-agent: foo\nDisallow: /\n'), fetchedAt: 0 }, { ttlMs: 1 });
    const v = evaluateRobots('obey', input('/x', { state }));
    expect(v.allowed).toBe(true);
    expect(v.reason).toBe('allowed: no group for Trove and no * group');
  });

  it('robots.txt not fetched yet: not allowed, pending, no exception', () => {
    const v = evaluateRobots('obey', input('/x', { state: null }));
    expect(v).toMatchObject({ allowed: false, pending: true, reason: 'robots.txt not yet fetched' });
  });

  it('server down (disallow-all): disallowed with the outage reason; 404 (allow-all): allowed', () => {
    const down = robotsStateFromFetch({ status: 503, fetchedAt: 0 }, { ttlMs: 1000 });
    const v = evaluateRobots('obey', input('/x', { state: down }));
    expect(v.allowed).toBe(false);
    expect(v.reason).toContain('HTTP 503');
    const missing = robotsStateFromFetch({ status: 404, fetchedAt: 0 }, { ttlMs: 1000 });
    const w = evaluateRobots('obey', input('/x', { state: missing }));
    expect(w.allowed).toBe(true);
    expect(w.reason).toContain('HTTP 404');
  });
});

describe('policy ignore', () => {
  it('always allows, and records what obeying would have said', () => {
    const v = evaluateRobots('ignore', input('/no-trove/x'));
    expect(v.allowed).toBe(true);
    expect(v.reason).toBe('robots.txt ignored (policy ignore); obeying it: disallowed by "Disallow: /no-trove" (line 5) for group Trove');
    expect(evaluateRobots('ignore', input('/ok')).reason).toBe('robots.txt ignored (policy ignore)');
    expect(evaluateRobots('ignore', input('/x', { state: null })).allowed).toBe(true);
    const down = robotsStateFromFetch({ status: 500, fetchedAt: 0 }, { ttlMs: 1000 });
    expect(evaluateRobots('ignore', input('/x', { state: down }))).toMatchObject({ allowed: true, reason: expect.stringContaining('HTTP 500') });
  });
});

describe('policy custom', () => {
  const custom = parseRobots('User-agent: *\nDisallow: /custom-only\n');

  it("uses the operator's rules instead of the site's, even before the site's are fetched", () => {
    const v = evaluateRobots('custom', input('/custom-only/1', { custom, state: null }));
    expect(v.allowed).toBe(false);
    expect(v.reason).toBe('custom robots.txt: disallowed by "Disallow: /custom-only" (line 2) for group *');
    expect(evaluateRobots('custom', input('/no-trove/x', { custom })).allowed).toBe(true);
  });

  it('without rules: ROBOTS_CUSTOM_MISSING', () => {
    expect(code(() => evaluateRobots('custom', input('/x')))).toBe('ROBOTS_CUSTOM_MISSING');
  });
});

describe('policy most-favored', () => {
  const candidates = ['bingbot', GOOGLEBOT_UA];

  it('our agent allowed: ours decides, nothing to masquerade', () => {
    const v = evaluateRobots('most-favored', input('/public', { candidateAgents: candidates, masquerade: true }));
    expect(v).toMatchObject({ allowed: true, agent: 'Trove' });
    expect(v.sendUserAgent).toBeUndefined();
  });

  it('a candidate allowed where we are not: allowed as that candidate', () => {
    const v = evaluateRobots('most-favored', input('/no-trove/x', { candidateAgents: candidates }));
    expect(v.allowed).toBe(true);
    expect(v.agent).toBe('Googlebot');
    expect(v.sendUserAgent).toBeUndefined();
    expect(v.reason).toBe('candidate agent Googlebot: allowed: no rule matches in group Googlebot');
  });

  it('with masquerade, the request is sent as the allowed candidate', () => {
    const v = evaluateRobots('most-favored', input('/no-trove/x', { candidateAgents: candidates, masquerade: true }));
    expect(v.sendUserAgent).toBe(GOOGLEBOT_UA);
    expect(v.reason).toContain('masquerading');
  });

  it('nobody allowed: disallowed under our own rule', () => {
    const v = evaluateRobots('most-favored', input('/private/nothing', { userAgent: 'OtherBot', candidateAgents: ['bingbot', 'Googlebot'] }));
    expect(v.allowed).toBe(false);
    expect(v.agent).toBe('OtherBot');
    expect(v.reason).toContain('no candidate agent allowed either (2 tried)');
  });

  it('a disallow-all state applies to every candidate', () => {
    const down = robotsStateFromFetch({ status: 0, error: 'ECONNRESET', fetchedAt: 0 }, { ttlMs: 1000 });
    expect(evaluateRobots('most-favored', input('/x', { state: down, candidateAgents: candidates })).allowed).toBe(false);
  });

  it('a candidate without a token is a configuration error', () => {
    expect(code(() => evaluateRobots('most-favored', input('/no-trove', { candidateAgents: [''] })))).toBe('ROBOTS_AGENT_INVALID');
  });
});

describe('policy first-named', () => {
  it('our own named group decides even when a candidate would be allowed', () => {
    const v = evaluateRobots('first-named', input('/no-trove/x', { candidateAgents: ['Googlebot'], masquerade: true }));
    expect(v).toMatchObject({ allowed: false, agent: 'Trove', group: 'Trove' });
    expect(v.sendUserAgent).toBeUndefined();
  });

  it('without our group, the first candidate with a named group decides, whatever it says', () => {
    const other = { userAgent: 'OtherBot/1.0' };
    const bing = evaluateRobots('first-named', input('/public', { ...other, candidateAgents: ['NoSuchBot', 'bingbot', 'Googlebot'] }));
    expect(bing).toMatchObject({ allowed: false, agent: 'bingbot', group: 'bingbot' });
    expect(bing.reason).toBe('candidate agent bingbot: disallowed by "Disallow: /" (line 12) for group bingbot');
    const google = evaluateRobots('first-named', input('/private/google/1', { ...other, candidateAgents: ['Googlebot', 'bingbot'], masquerade: true }));
    expect(google).toMatchObject({ allowed: true, agent: 'Googlebot', sendUserAgent: 'Googlebot' });
  });

  it('no agent of the set has a named group: our * fallback decides, and the reason says why', () => {
    const v = evaluateRobots('first-named', input('/private/x', { userAgent: 'OtherBot', candidateAgents: ['NoSuchBot'] }));
    expect(v).toMatchObject({ allowed: false, agent: 'OtherBot', group: '*' });
    expect(v.reason).toContain('no agent in the set has a named group');
  });
});

describe('bad policy names', () => {
  it('throws ROBOTS_POLICY_UNKNOWN', () => {
    expect(code(() => evaluateRobots('polite' as never, input('/x')))).toBe('ROBOTS_POLICY_UNKNOWN');
  });
});
