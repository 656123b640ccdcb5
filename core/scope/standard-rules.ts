/**
 * The fixed rules of Heritrix's default scope sequence (everything but the seed-implied scope,
 * which lives in scope-presets.ts). Each rule answers ACCEPT, REJECT or PASS with a reason a
 * person can read.
 */
import { TroveError } from '../errors.ts';
import type { DecideRule, RuleAnswer } from './scope-types.ts';

const pass = (reason: string): RuleAnswer => ({ result: 'PASS', reason });
const accept = (reason: string): RuleAnswer => ({ result: 'ACCEPT', reason });
const reject = (reason: string): RuleAnswer => ({ result: 'REJECT', reason });

/** Hop letters that mean "a person could navigate here"; anything else is transcluded. */
const NAVIGATIONAL_HOPS = new Set(['L', 'M']);

/** Compile user regexes once, with a typed error naming the bad one. */
export function compileRegexes(patterns: readonly string[], setting: string): RegExp[] {
  return patterns.map((pattern) => compileRegex(pattern, setting));
}

export function compileRegex(pattern: string, setting: string): RegExp {
  if (typeof pattern !== 'string' || pattern.length === 0) {
    throw new TroveError('SCOPE_BAD_REGEX', `${setting}: a pattern must be a non-empty string`, { setting, pattern });
  }
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new TroveError('SCOPE_BAD_REGEX', `${setting}: not a valid regular expression: /${pattern}/ (${(err as Error).message})`, {
      setting,
      pattern,
    });
  }
}

export const REJECT_ALL = 'reject-all';

/**
 * Heritrix rule 1: everything starts rejected; a later rule has to accept it. When it stands,
 * the decision names why the accepting rules did not (decide-rules.ts, notAccepted).
 */
export function rejectAllRule(): DecideRule {
  return {
    name: REJECT_ALL,
    describe: () => 'reject-all: REJECT every URL unless a later rule accepts it',
    decide: () => reject('nothing has accepted this URL yet'),
  };
}

/** Browsertrix-style include regexes: a match widens the scope (excludes still win). */
export function includeRegexRule(patterns: readonly string[]): DecideRule {
  const regexes = compileRegexes(patterns, 'include');
  return {
    name: 'include-regex',
    describe: () => `include-regex: ACCEPT URLs matching ${regexes.length ? regexes.map(String).join(' or ') : '(no patterns)'}`,
    decide: ({ href }) => {
      const hit = regexes.find((re) => re.test(href));
      return hit ? accept(`matched ${String(hit)}`) : pass(regexes.length ? 'matched no include pattern' : 'no include patterns');
    },
  };
}

/** Heritrix TooManyHopsDecideRule: every hop counts (links, embeds, redirects…). */
export function maxHopsRule(maxHops: number): DecideRule {
  return {
    name: 'max-hops',
    describe: () => `max-hops: REJECT URLs more than ${maxHops} hops from a seed`,
    decide: ({ candidate }) => {
      const hops = candidate.hopsPath.length;
      const counted = `${hops} hop${hops === 1 ? '' : 's'}`;
      return hops > maxHops
        ? reject(`too many hops: ${hops} (${abbreviate(candidate.hopsPath)}) > max-hops ${maxHops}`)
        : pass(`${counted} ≤ maxHops ${maxHops}`);
    },
  };
}

/**
 * Heritrix TransclusionDecideRule: accept what a page needs to display (embeds, redirects,
 * prerequisites, at most one speculative hop) up to `transHops` non-link hops after the last
 * link. So a page's images on a CDN are captured, a link to another site is not.
 */
export function transclusionRule(transHops: number, maxSpeculative = 1): DecideRule {
  /** The non-link hops after the last link (or the seed), and how many are speculative. */
  const tailOf = (path: string) => {
    let count = 0;
    let speculative = 0;
    for (let i = path.length - 1; i >= 0 && !NAVIGATIONAL_HOPS.has(path[i]!); i--) {
      count++;
      if (path[i] === 'X') speculative++;
    }
    return { count, speculative, tail: path.slice(path.length - count) };
  };
  return {
    name: 'transclusion',
    describe: () =>
      `transclusion: ACCEPT URLs reached by 1–${transHops} non-link hops (E, R, X, P, I, S; at most ${maxSpeculative} X) after the last link`,
    decide: ({ candidate }) => {
      const path = candidate.hopsPath;
      const { count, speculative, tail } = tailOf(path);
      if (count === 0) {
        return pass(path.length === 0 ? 'no hops' : `last hop is a link (${path[path.length - 1]})`);
      }
      if (count > transHops) return pass(`${count} non-link hops at the end (${abbreviate(tail)}) > transHops ${transHops}`);
      if (speculative > maxSpeculative) return pass(`${speculative} speculative hops (X) at the end > ${maxSpeculative}`);
      return accept(`hops path ${abbreviate(path)} ends in ${count} non-link hop${count > 1 ? 's' : ''} (${tail}) ≤ transHops ${transHops}`);
    },
    whyNotAccepted: ({ candidate }) => {
      const { count, speculative, tail } = tailOf(candidate.hopsPath);
      if (count > transHops) {
        return { key: 'trans-hops', reason: `an embed or redirect ${count} hops (${abbreviate(tail)}) after its page > trans-hops ${transHops}` };
      }
      if (count > 0 && speculative > maxSpeculative) {
        return { key: 'trans-hops', reason: `${speculative} speculative hops (X) after its page > ${maxSpeculative}` };
      }
      return null;
    },
  };
}

/** The exclude-regex rule; `add` takes one more pattern (a live exclusion) from then on. */
export function excludeRegexRule(patterns: readonly string[]): DecideRule & { add(pattern: string): void } {
  const regexes = compileRegexes(patterns, 'exclude');
  return {
    add: (pattern) => {
      const re = compileRegex(pattern, 'exclude');
      if (!regexes.some((r) => r.source === re.source)) regexes.push(re);
    },
    name: 'exclude-regex',
    describe: () => `exclude-regex: REJECT URLs matching ${regexes.length ? regexes.map(String).join(' or ') : '(no patterns)'}`,
    decide: ({ href }) => {
      const hit = regexes.find((re) => re.test(href));
      return hit ? reject(`matched ${String(hit)}`) : pass(regexes.length ? 'matched no exclude pattern' : 'no exclude patterns');
    },
  };
}

/** Heritrix PathologicalPathDecideRule: `/a/a/a/…` is a crawler trap, not a site. */
export function pathRepeatsRule(maxRepeats: number): DecideRule {
  return {
    name: 'path-repeats',
    describe: () => `path-repeats: REJECT URLs with a path segment repeated more than ${maxRepeats} times in a row`,
    decide: ({ url }) => {
      if (!url) return pass('no path');
      const segments = url.pathname.split('/').filter((s) => s.length > 0);
      let run = 1;
      for (let i = 1; i < segments.length; i++) {
        run = segments[i] === segments[i - 1] ? run + 1 : 1;
        if (run > maxRepeats) return reject(`segment "${segments[i]}" repeated ${run} times in a row > maxPathRepeats ${maxRepeats}`);
      }
      return pass(`no segment repeated more than ${maxRepeats} times in a row`);
    },
  };
}

/** Heritrix TooManyPathSegmentsDecideRule: counts the slashes of the path. */
export function pathDepthRule(maxDepth: number): DecideRule {
  return {
    name: 'path-depth',
    describe: () => `path-depth: REJECT URLs with more than ${maxDepth} path segments`,
    decide: ({ url }) => {
      if (!url) return pass('no path');
      let depth = 0;
      for (const c of url.pathname) if (c === '/') depth++;
      const segments = `${depth} path segment${depth === 1 ? '' : 's'}`;
      return depth > maxDepth ? reject(`${segments} > maxPathDepth ${maxDepth}`) : pass(`${segments} ≤ maxPathDepth ${maxDepth}`);
    },
  };
}

/** 2083 is the longest URL old Internet Explorer accepted; longer ones are almost always traps. */
export function urlLengthRule(maxLength: number): DecideRule {
  return {
    name: 'url-length',
    describe: () => `url-length: REJECT URLs longer than ${maxLength} characters`,
    decide: ({ href }) =>
      href.length > maxLength
        ? reject(`${href.length} characters > maxUrlLength ${maxLength}`)
        : pass(`${href.length} characters ≤ maxUrlLength ${maxLength}`),
  };
}

/** Heritrix PrerequisiteAcceptDecideRule: robots.txt (and DNS) are fetched whatever the scope. */
export function prerequisiteRule(): DecideRule {
  return {
    name: 'prerequisite',
    describe: () => 'prerequisite: ACCEPT prerequisites (hops path ending in P, e.g. robots.txt)',
    decide: ({ candidate }) =>
      candidate.hopsPath.endsWith('P') ? accept('a prerequisite (hops path ends in P)') : pass('not a prerequisite'),
  };
}

/** Heritrix SchemeNotInSetDecideRule: only http and https are fetched. */
export function schemeRule(): DecideRule {
  return {
    name: 'scheme',
    describe: () => 'scheme: REJECT URLs that are not valid http or https URLs',
    decide: ({ url }) => {
      if (!url) return reject('not a valid URL');
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(`scheme ${url.protocol.slice(0, -1)} is not http or https`);
      return pass(`scheme ${url.protocol.slice(0, -1)}`);
    },
  };
}

/** Long hop paths (`LLLLLLLLLLLLLLLLLLLLLE`) shortened for reasons. */
function abbreviate(hops: string): string {
  return hops.length <= 12 ? hops : `${hops.slice(0, 4)}…${hops.slice(-6)}`;
}
