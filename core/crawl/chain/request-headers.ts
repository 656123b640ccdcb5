/** The request headers every HTTP fetch of the crawl sends (robots.txt included). */
import type { CrawlContext } from '../crawl-context.ts';
import type { HostSettings } from '../host-settings.ts';

export function requestHeaders(ctx: CrawlContext, hs: HostSettings, sendAgent: string | undefined): [string, string][] {
  const h: [string, string][] = [
    ['User-Agent', sendAgent ?? hs.userAgent],
    ['Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
  ];
  const op = ctx.settings.operator.trim();
  // RFC 9110 `From` is a mailbox; Heritrix sends the operator's contact the same way.
  if (/^[^\s@]+@[^\s@]+$/.test(op)) h.push(['From', op]);
  return h;
}
