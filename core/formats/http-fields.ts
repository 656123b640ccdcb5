/**
 * Reading HTTP header fields from `[name, value]` lists kept in wire order (live responses,
 * archived heads, replay requests) — the one place that decides which line a lookup returns.
 *
 * RFC 9110 §5.2–5.3: names are case-insensitive; a field sent on several lines is, for a list
 * field (`#rule`: Content-Encoding, Transfer-Encoding, Vary, Cache-Control, Link …), one value
 * joined with commas in order; for a singleton (Content-Type, Location, Content-Length,
 * Retry-After …) several lines are an error the recipient has to resolve. For singletons we take
 * the first line, as warcio's `get_header` and pywb do when they index and replay archives, so a
 * record reads the same here as in those tools.
 */

export type FieldList = readonly (readonly [string, string])[];

/** The value of the first line named `name` (case-insensitive), or null. For singleton fields. */
export function fieldValue(fields: FieldList | undefined, name: string): string | null {
  if (!fields) return null;
  const lower = name.toLowerCase();
  for (const [k, v] of fields) if (k.length === lower.length && k.toLowerCase() === lower) return v;
  return null;
}

/** Every value of lines named `name`, in order. */
export function fieldValues(fields: FieldList | undefined, name: string): string[] {
  const out: string[] = [];
  if (!fields) return out;
  const lower = name.toLowerCase();
  for (const [k, v] of fields) if (k.length === lower.length && k.toLowerCase() === lower) out.push(v);
  return out;
}

/**
 * A list field's combined value (RFC 9110 §5.3): the lines named `name` joined with `, ` in
 * order, or null when there is none. For `#rule` fields such as Content-Encoding.
 */
export function listFieldValue(fields: FieldList | undefined, name: string): string | null {
  const values = fieldValues(fields, name);
  return values.length === 0 ? null : values.join(', ');
}

/** The members of a list field, trimmed and lower-cased, empty members left out (`gzip, br`). */
export function listFieldTokens(fields: FieldList | undefined, name: string): string[] {
  const out: string[] = [];
  for (const v of fieldValues(fields, name)) {
    for (const t of v.split(',')) {
      const token = t.trim().toLowerCase();
      if (token !== '') out.push(token);
    }
  }
  return out;
}

/**
 * Where a 3xx response points: its (first) Location resolved against the request URL (RFC 9110
 * §10.2.2 allows a relative reference). `raw` is the field as sent, for callers that show or keep
 * a Location URL parsing refuses; `absolute` is null then, and when there is no redirect.
 */
export function redirectLocation(status: number, fields: FieldList | undefined, base: string): { raw: string | null; absolute: string | null } {
  const raw = status >= 300 && status < 400 ? fieldValue(fields, 'location') : null;
  if (!raw) return { raw: null, absolute: null };
  try {
    return { raw, absolute: new URL(raw, base).href };
  } catch {
    return { raw, absolute: null };
  }
}
