/**
 * Turning what a person types into an FTS5 query. FTS5's own syntax (AND/OR/NEAR, quotes,
 * column filters, `-`) makes ordinary input such as `covid-19` or `"it's"` a syntax error, so by
 * default every word becomes a quoted phrase and words are ANDed; a trailing `*` keeps prefix
 * search, and words between a pair of double quotes stay one phrase (`"city council"`: the words
 * next to each other, in that order). An unpaired quote is only a character of its word. Callers
 * that want the full syntax pass `raw`.
 */

/** `covid-19 vacc* "city council"` → `"covid-19" "vacc"* "city council"`. Empty when the input has no words. */
export function toFtsQuery(input: string): string {
  const parts: string[] = [];
  for (const m of input.matchAll(/"([^"]*)"|(\S+)/g)) {
    if (m[1] !== undefined) {
      const phrase = m[1].split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
      if (phrase.length > 0) parts.push(`"${phrase.join(' ')}"`);
      continue;
    }
    const word = m[2]!;
    const prefix = word.length > 1 && word.endsWith('*');
    const body = prefix ? word.slice(0, -1) : word;
    // A word with no letters or digits would be an empty phrase; FTS5 treats those oddly.
    if (!/[\p{L}\p{N}]/u.test(body)) continue;
    parts.push(`"${body.replaceAll('"', '""')}"${prefix ? '*' : ''}`);
  }
  return parts.join(' ');
}
