/** Plain-words explanations shown next to choices (robots policies, scope presets, politeness). */
import type { PolitenessPreset, RobotsPolicy, ScopePreset } from '../../../core/api/settings.ts';

export const ROBOTS_POLICIES: { id: RobotsPolicy; title: string; plain: string }[] = [
  { id: 'obey', title: 'Obey', plain: 'Follow the site’s robots.txt for our user agent (or the * rules). The classic, polite choice.' },
  {
    id: 'ignore',
    title: 'Ignore',
    plain: 'Fetch everything in scope. robots.txt is still fetched and archived, and the log says what obeying would have skipped.',
  },
  { id: 'custom', title: 'Custom rules', plain: 'Use the robots.txt you write below instead of each site’s own.' },
  {
    id: 'most-favored',
    title: 'Most favored',
    plain: 'Allowed if our agent or any candidate agent is allowed. With masquerade, the request is sent as the agent that was allowed.',
  },
  {
    id: 'first-named',
    title: 'First named',
    plain: 'The first agent in the list (ours, then the candidates) that the file names decides. With none named, the * rules decide.',
  },
];

export const SCOPE_PRESETS: { id: ScopePreset; title: string; plain: string }[] = [
  { id: 'page', title: 'Page', plain: 'Only the seed pages and what they embed (images, CSS, scripts).' },
  { id: 'prefix', title: 'Prefix', plain: 'Everything under each seed’s folder: https://site/docs/ covers /docs/…' },
  { id: 'host', title: 'Host', plain: 'Everything on the seed’s host name.' },
  { id: 'domain', title: 'Domain', plain: 'The seed’s domain and all its subdomains.' },
  { id: 'any', title: 'Any', plain: 'Follow links anywhere (with the hop limit). Use with care.' },
];

export const POLITENESS: { id: PolitenessPreset; title: string; plain: string }[] = [
  { id: 'polite', title: 'Polite', plain: 'Heritrix defaults: wait 5× each fetch’s time, at least 3 s, one connection per host.' },
  { id: 'moderate', title: 'Moderate', plain: 'Wait 2× each fetch’s time, at least 1 s, one connection per host.' },
  { id: 'fast', title: 'Fast', plain: 'No waiting and 4 connections per host. Only for your own sites.' },
];
