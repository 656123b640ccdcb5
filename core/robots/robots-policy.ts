/**
 * The five Heritrix robots policies: given a site's robots state, may we fetch this URL, under
 * which agent's rules, and with which User-Agent? Every verdict carries a human reason, because
 * "robots failures treated as allow without a record of why" is what we set out not to do.
 *
 * - obey: the group for our agent token, else `*`.
 * - ignore: always allowed; robots.txt is still fetched (and archived) and the reason says what
 *   obeying would have said.
 * - custom: operator-supplied rules instead of the site's, matched for our agent.
 * - most-favored: allowed if our agent or any candidate agent is allowed (ours is tried first);
 *   with masquerade, the request is sent as the candidate that was allowed.
 * - first-named: Heritrix's most-favored-set: the first of [ours, ...candidates] that has a named
 *   group in the file decides; with none, our agent's `*` fallback decides. Masquerade likewise.
 *
 * With no robots state yet (`state: null`), every policy that needs the site's file returns a
 * disallowed verdict with `pending: true` and reason 'robots.txt not yet fetched' instead of
 * throwing: the crawl loop treats robots.txt as a prerequisite, and a verdict it can log is
 * safer than an exception it might forget to catch. A state that says disallow-all or allow-all
 * (server down, file missing) applies to every agent alike.
 */
import type { RobotsPolicy } from '../api/settings.ts';
import { TroveError } from '../errors.ts';
import { agentToken } from './agent-token.ts';
import type { RobotsMatch, RobotsTxt } from './parse-robots.ts';
import type { RobotsState } from './robots-state.ts';

export { agentToken } from './agent-token.ts';

export interface RobotsVerdict {
  allowed: boolean;
  policy: RobotsPolicy;
  /** The product token whose rules decided. */
  agent: string;
  /** Set when masquerading: send this User-Agent instead of ours. */
  sendUserAgent?: string;
  rule: RobotsMatch['rule'];
  /** The group used (`*`, an agent token as written) or null. */
  group: string | null;
  /** Human reason: `disallowed by "Disallow: /private" (line 4) for group *`. */
  reason: string;
  /** True when the site's robots.txt has not been fetched yet: fetch it, then ask again. */
  pending?: boolean;
}

export interface RobotsInput {
  /** The site's robots state; null when robots.txt has not been fetched yet. */
  state: RobotsState | null;
  /** Rules for the `custom` policy. */
  custom?: RobotsTxt;
  url: string;
  /** Our full User-Agent string. */
  userAgent: string;
  /** Other agents for most-favored / first-named: tokens (`Googlebot`) or full UA strings. */
  candidateAgents: string[];
  masquerade: boolean;
}

interface Agent {
  token: string;
  userAgent: string;
  ours: boolean;
}

/**
 * Decide one URL. Throws `ROBOTS_AGENT_INVALID` when our UA or a candidate has no product token,
 * `ROBOTS_CUSTOM_MISSING` for the custom policy without rules, `ROBOTS_POLICY_UNKNOWN` for a
 * policy name it does not know: all configuration errors, so validate settings with them early.
 */
export function evaluateRobots(policy: RobotsPolicy, input: RobotsInput): RobotsVerdict {
  const ours: Agent = { token: agentToken(input.userAgent), userAgent: input.userAgent, ours: true };
  switch (policy) {
    case 'obey':
      return siteWide(policy, ours, input.state) ?? fromMatch(policy, ours, site(input.state).match(ours.token, input.url));
    case 'ignore':
      return ignored(ours, input);
    case 'custom': {
      if (input.custom === undefined) {
        throw new TroveError('ROBOTS_CUSTOM_MISSING', 'The custom robots policy needs robots rules (robotsFile)', {});
      }
      const verdict = fromMatch(policy, ours, input.custom.match(ours.token, input.url));
      return { ...verdict, reason: `custom robots.txt: ${verdict.reason}` };
    }
    case 'most-favored':
      return siteWide(policy, ours, input.state) ?? mostFavored(ours, site(input.state), input);
    case 'first-named':
      return siteWide(policy, ours, input.state) ?? firstNamed(ours, site(input.state), input);
    default:
      throw new TroveError('ROBOTS_POLICY_UNKNOWN', `Unknown robots policy ${JSON.stringify(policy)}`, { policy });
  }
}

/** Verdicts that do not depend on the agent: not fetched yet, server down, file missing. */
function siteWide(policy: RobotsPolicy, ours: Agent, state: RobotsState | null): RobotsVerdict | null {
  const base = { policy, agent: ours.token, rule: null, group: null };
  if (state === null) return { ...base, allowed: false, reason: 'robots.txt not yet fetched', pending: true };
  if (state.kind === 'disallow-all') return { ...base, allowed: false, reason: state.reason };
  if (state.kind === 'allow-all') return { ...base, allowed: true, reason: state.reason };
  return null;
}

function site(state: RobotsState | null): RobotsTxt {
  // Only called after siteWide() returned null, so the state holds rules.
  if (state === null || state.kind !== 'rules') throw new Error('unreachable: site rules without a rules state');
  return state.robots;
}

function fromMatch(policy: RobotsPolicy, agent: Agent, m: RobotsMatch): RobotsVerdict {
  return { allowed: m.allowed, policy, agent: agent.token, rule: m.rule, group: m.group, reason: describeMatch(m, agent.token) };
}

/** `disallowed by "Disallow: /private" (line 4) for group *`, or why no rule applied. */
export function describeMatch(m: RobotsMatch, agent: string): string {
  if (m.rule !== null) {
    const directive = m.rule.directive === 'allow' ? 'Allow' : 'Disallow';
    return `${m.allowed ? 'allowed' : 'disallowed'} by "${directive}: ${m.rule.pattern}" (line ${m.rule.line}) for group ${m.group}`;
  }
  if (m.group !== null) return `allowed: no rule matches in group ${m.group}`;
  return `allowed: no group for ${agent} and no * group`;
}

function ignored(ours: Agent, input: RobotsInput): RobotsVerdict {
  const verdict: RobotsVerdict = {
    allowed: true,
    policy: 'ignore',
    agent: ours.token,
    rule: null,
    group: null,
    reason: 'robots.txt ignored (policy ignore)',
  };
  const state = input.state;
  if (state !== null && state.kind === 'rules') {
    const m = state.robots.match(ours.token, input.url);
    if (!m.allowed) return { ...verdict, rule: m.rule, group: m.group, reason: `${verdict.reason}; obeying it: ${describeMatch(m, ours.token)}` };
  } else if (state !== null && state.kind === 'disallow-all') {
    return { ...verdict, reason: `${verdict.reason}; obeying it: ${state.reason}` };
  }
  return verdict;
}

function candidates(input: RobotsInput): Agent[] {
  return input.candidateAgents.map((ua) => ({ token: agentToken(ua), userAgent: ua, ours: false }));
}

function mostFavored(ours: Agent, robots: RobotsTxt, input: RobotsInput): RobotsVerdict {
  const all = [ours, ...candidates(input)];
  for (const agent of all) {
    const m = robots.match(agent.token, input.url);
    if (!m.allowed) continue;
    const verdict = fromMatch('most-favored', agent, m);
    if (agent.ours) return verdict;
    return withCandidate(verdict, agent, input.masquerade);
  }
  const m = robots.match(ours.token, input.url);
  const verdict = fromMatch('most-favored', ours, m);
  const others = all.length - 1;
  return { ...verdict, reason: `${verdict.reason}; no candidate agent allowed either (${others} tried)` };
}

function firstNamed(ours: Agent, robots: RobotsTxt, input: RobotsInput): RobotsVerdict {
  const all = [ours, ...candidates(input)];
  const named = all.find((a) => robots.hasGroupFor(a.token));
  if (named === undefined || named.ours) {
    const verdict = fromMatch('first-named', ours, robots.match(ours.token, input.url));
    if (named !== undefined || all.length === 1) return verdict;
    return { ...verdict, reason: `${verdict.reason} (no agent in the set has a named group)` };
  }
  const verdict = fromMatch('first-named', named, robots.match(named.token, input.url));
  return withCandidate(verdict, named, input.masquerade);
}

/** A candidate decided: say so, and masquerade as it when allowed and configured. */
function withCandidate(verdict: RobotsVerdict, agent: Agent, masquerade: boolean): RobotsVerdict {
  const as = masquerade && verdict.allowed ? ', masquerading as it' : '';
  const out: RobotsVerdict = { ...verdict, reason: `candidate agent ${agent.token}${as}: ${verdict.reason}` };
  if (masquerade && verdict.allowed) out.sendUserAgent = agent.userAgent;
  return out;
}
