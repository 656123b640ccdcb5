/**
 * Plain-words explanations shown next to choices (robots policies, scope presets, politeness,
 * capture modes).
 * The choices themselves are core's (core/api/settings.ts): each table is typed as a record over
 * core's names, so a choice added or renamed there fails the build here until it is explained.
 */
import type { CaptureMode, PolitenessPreset, RobotsPolicy, ScopePreset } from '../../../core/api/settings.ts';

interface Explained {
  title: string;
  plain: string;
}

/** The radio-group list of a table: one entry per name, in the table's order. */
function choices<T extends string>(table: Record<T, Explained>): { id: T; title: string; plain: string }[] {
  return (Object.keys(table) as T[]).map((id) => ({ id, ...table[id] }));
}

export const ROBOTS_POLICIES = choices<RobotsPolicy>({
  obey: { title: 'Obey', plain: 'Follow the site’s robots.txt for our user agent (or the * rules). The classic, polite choice.' },
  ignore: {
    title: 'Ignore',
    plain: 'Fetch everything in scope. robots.txt is still fetched and archived, and the log says what obeying would have skipped.',
  },
  custom: { title: 'Custom rules', plain: 'Use the robots.txt you write below instead of each site’s own.' },
  'most-favored': {
    title: 'Most favored',
    plain: 'Allowed if our agent or any candidate agent is allowed. With masquerade, the request is sent as the agent that was allowed.',
  },
  'first-named': {
    title: 'First named',
    plain: 'The first agent in the list (ours, then the candidates) that the file names decides. With none named, the * rules decide.',
  },
});

export const SCOPE_PRESETS = choices<ScopePreset>({
  page: { title: 'Page', plain: 'Only the seed pages and what they embed (images, CSS, scripts).' },
  prefix: { title: 'Prefix', plain: 'Everything under each seed’s folder: https://site/docs/ covers /docs/…' },
  host: { title: 'Host', plain: 'Everything on the seed’s host name.' },
  domain: { title: 'Domain', plain: 'The seed’s domain and all its subdomains.' },
  any: { title: 'Any', plain: 'Follow links anywhere (with the hop limit). Use with care.' },
});

export const POLITENESS = choices<PolitenessPreset>({
  polite: { title: 'Polite', plain: 'Heritrix defaults: wait 5× each fetch’s time, at least 3 s, one connection per host.' },
  moderate: { title: 'Moderate', plain: 'Wait 2× each fetch’s time, at least 1 s, one connection per host.' },
  fast: { title: 'Fast', plain: 'No waiting and 4 connections per host. Only for your own sites.' },
});

export const CAPTURE_MODES = choices<CaptureMode>({
  http: { title: 'Off', plain: 'Every page over HTTP. Fastest; misses what scripts build.' },
  auto: { title: 'Automatic', plain: 'HTTP first; in a browser only the kinds of page that need one.' },
  browser: { title: 'Every page', plain: 'Every page in a browser tab. Most faithful, slowest.' },
});
