/**
 * Links nobody wrote but every browser requests: `/favicon.ico` on the page's origin. Heritrix
 * marks such URLs with the inferred hop (I). The caller decides when to ask (seeds, host roots),
 * so a crawl does not request the same favicon from every page.
 */
import type { Outlink } from './outlink.ts';

export function inferredLinks(url: string): Outlink[] {
  const u = URL.parse(url);
  if (u === null || (u.protocol !== 'http:' && u.protocol !== 'https:')) return [];
  return [{ url: new URL('/favicon.ico', u.origin).href, hop: 'I', context: 'inferred/favicon' }];
}
