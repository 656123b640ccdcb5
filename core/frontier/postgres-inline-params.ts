/**
 * Parameters written into a statement's text as SQL literals, so several statements go to the
 * server as one simple-protocol query: one round trip for a whole transaction (BEGIN … COMMIT)
 * where the extended protocol node-postgres speaks needs one per statement (it has no pipelining).
 * Strings go through pg's own escapeLiteral; numbers must be finite; arrays become ARRAY[…] (every
 * array placeholder in the frontier's statements carries its cast, so an empty one is typed).
 */
import pg from 'pg';

function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new TypeError(`not a finite number for SQL: ${v}`);
    // Parenthesised when negative: "x - $1" must not become "x --1" (a comment).
    return v < 0 ? `(${v})` : String(v);
  }
  if (typeof v === 'bigint') return v < 0n ? `(${v})` : v.toString();
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return pg.escapeLiteral(v);
  if (Array.isArray(v)) return `ARRAY[${v.map(literal).join(',')}]`;
  throw new TypeError(`no SQL literal for ${typeof v}`);
}

/** `text` with each $n replaced by the literal of params[n - 1]. */
export function inlineParams(text: string, params: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i >= params.length) throw new RangeError(`statement uses $${n} but has ${params.length} parameters`);
    return literal(params[i]);
  });
}
