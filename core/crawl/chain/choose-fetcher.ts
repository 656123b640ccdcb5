/**
 * The decide rule that picks a URI's fetch processor. robots.txt is read by HTTP (its redirects
 * followed); in browser mode, seeds and pages (URIs whose hop path ends in L) are loaded in a
 * browser tab, and everything else (embeds, redirects, sitemaps, robots.txt) is fetched by HTTP.
 * A "page" that turns out not to be HTML costs a tab but is captured all the same. In auto mode
 * the page processor is fetch-auto.ts (HTTP first, the browser when the page needs one).
 */
import type { CrawlUri, Processor } from './crawl-uri.ts';
import { isRobotsUri } from './is-robots-uri.ts';

export interface FetchProcessors {
  http: Processor;
  robotsTxt: Processor;
  /** The processor of seeds and pages: present in browser mode (fetch-browser) and auto mode (fetch-auto) only. */
  browser?: Processor;
}

export function isBrowserPage(curi: CrawlUri): boolean {
  return curi.uri.seed || curi.uri.hopsPath.endsWith('L');
}

export function chooseFetcher(fetchers: FetchProcessors): (curi: CrawlUri) => Processor {
  return (curi) => {
    if (isRobotsUri(curi.uri)) return fetchers.robotsTxt;
    if (fetchers.browser && isBrowserPage(curi)) return fetchers.browser;
    return fetchers.http;
  };
}
