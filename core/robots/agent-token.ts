/**
 * Product tokens: the short name robots.txt groups are keyed by (`User-agent: Trove`), as opposed
 * to the full User-Agent header a crawler sends.
 */
import { TroveError } from '../errors.ts';

/**
 * RFC 9309 product tokens are letters, `_` and `-`. We also keep digits: real crawlers are named
 * `MJ12bot` or `360Spider`, and cutting `allowbot2` down to `allowbot` (as Google's parser does)
 * would apply one crawler's group to another. Heritrix matches these names whole too.
 */
const TOKEN = /^[A-Za-z0-9_-]+/;

/**
 * The token a `User-agent:` line names: `*`, or its leading run of token characters, so
 * `FoO bAr` names `FoO` and `Trove/1.0` names `Trove` (what Google's reference parser does, and
 * what lets the rest of the value be a comment). Empty when the value starts with anything else:
 * such a line still opens a group, but a group no crawler matches.
 */
export function robotsLineAgent(value: string): string {
  if (value.startsWith('*')) return '*';
  return TOKEN.exec(value)?.[0] ?? '';
}

/**
 * The product token for a full User-Agent string, used to pick our group in robots.txt:
 * - `Mozilla/5.0 (compatible; Trove/0.1.0; +https://…)` → `Trove` (the name after `compatible;`,
 *   the form bots that imitate browsers use);
 * - `Trove/0.1.0 (+https://…)` or plain `Trove` → `Trove` (the first product);
 * - a browser string such as `Mozilla/5.0 (X11; Linux) AppleWebKit/537.36 …` → `AppleWebKit`
 *   (the first product that is not the historical `Mozilla`; such a UA has no robots identity,
 *   so it will normally fall back to the `*` group).
 * Throws `ROBOTS_AGENT_INVALID` when there is no token at all: a crawl must say who it is.
 */
export function agentToken(userAgent: string): string {
  const ua = userAgent.trim();
  const compatible = /\(\s*compatible\s*;\s*([A-Za-z0-9_-]+)/i.exec(ua);
  if (compatible) return compatible[1]!;
  const outsideComments = ua.replace(/\([^)]*\)?/g, ' ');
  const products = outsideComments.split(/\s+/).map((p) => TOKEN.exec(p)?.[0] ?? '').filter((p) => p !== '');
  const token = products.find((p) => p.toLowerCase() !== 'mozilla') ?? products[0];
  if (token === undefined) {
    throw new TroveError('ROBOTS_AGENT_INVALID', `Cannot find a product token in the user agent ${JSON.stringify(userAgent)}`, {
      userAgent,
    });
  }
  return token;
}
