/**
 * Turning what a person types into an FTS5 query. FTS5's own syntax (AND/OR/NEAR, quotes,
 * column filters, `-`) makes ordinary input such as `covid-19` or `"it's"` a syntax error, so by
 * default every word becomes a quoted phrase and words are ANDed; a trailing `*` keeps prefix
 * search. Callers that want the full syntax pass `raw`.
 */

/** `covid-19 vacc*` → `"covid-19" "vacc"*`. Empty when the input has no words. */
export function toFtsQuery(input: string): string {
  const words = input.split(/\s+/).filter((w) => w !== '');
  const parts: string[] = [];
  for (const word of words) {
    const prefix = word.length > 1 && word.endsWith('*');
    const body = prefix ? word.slice(0, -1) : word;
    // A word with no letters or digits would be an empty phrase; FTS5 treats those oddly.
    if (!/[\p{L}\p{N}]/u.test(body)) continue;
    parts.push(`"${body.replaceAll('"', '""')}"${prefix ? '*' : ''}`);
  }
  return parts.join(' ');
}
