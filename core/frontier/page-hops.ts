/**
 * Which URIs may turn out to be pages, decided before the fetch from the hops path alone, so a
 * page limit can reserve a page slot when it claims one: a seed, a link or sitemap entry
 * (L, M), or a redirect (R) from one of those. Embeds, speculative and inferred hops and
 * prerequisites (E, X, I, S, P) — and redirects from them — belong to the page that needs them
 * and are never counted as pages. The frontier asks the same question in SQL (MAY_BE_PAGE_SQL).
 */

/** Hop letters that lead to a page of its own (a person could navigate there). */
const PAGE_HOPS = ['L', 'M'] as const;

/** True for hops paths whose URI may be a page: `''` (a seed), `…L`, `…M`, and those followed by redirects. */
export function mayBePage(hopsPath: string): boolean {
  const last = hopsPath.replace(/R+$/, '').slice(-1);
  return last === '' || (PAGE_HOPS as readonly string[]).includes(last);
}

/** The same test over the `uris.hops_path` column. */
export const MAY_BE_PAGE_SQL = `substr(rtrim(hops_path, 'R'), -1) IN ('', ${PAGE_HOPS.map((h) => `'${h}'`).join(', ')})`;

/** And in PostgreSQL, whose substr does not count from the end. */
export const MAY_BE_PAGE_PG_SQL = `right(rtrim(hops_path, 'R'), 1) IN ('', ${PAGE_HOPS.map((h) => `'${h}'`).join(', ')})`;
