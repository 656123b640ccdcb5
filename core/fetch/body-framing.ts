/**
 * How a live response's body is delimited (RFC 9112 §6.3), decided from its head as llhttp
 * decides it, so the fetcher knows where the message ends on a kept-alive connection.
 */
import { TroveError } from '../errors.ts';
import { fieldValues, listFieldTokens } from '../formats/http-fields.ts';
import type { ResponseHead } from '../formats/http-head.ts';

/** How the message body after the head is delimited (RFC 9112 §6.3). */
export type BodyFraming =
  | { kind: 'none' }
  | { kind: 'length'; length: number }
  | { kind: 'chunked' }
  | { kind: 'close' };

/**
 * Decide how the body is delimited. Throws TroveError FETCH_BAD_HEADERS on conflicting or
 * invalid Content-Length values, as llhttp does.
 */
export function bodyFraming(head: ResponseHead, method: string): BodyFraming {
  const { status, headers } = head;
  if (method === 'HEAD' || (status >= 100 && status < 200) || status === 204 || status === 304) return { kind: 'none' };

  const te = listFieldTokens(headers, 'transfer-encoding');
  const lengths: string[] = [];
  for (const v of fieldValues(headers, 'content-length')) lengths.push(...v.split(',').map((s) => s.trim()));
  if (te.length > 0) return te[te.length - 1] === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
  if (lengths.length > 0) {
    const distinct = new Set(lengths);
    const only = lengths[0];
    if (distinct.size > 1 || !/^\d{1,15}$/.test(only)) {
      throw new TroveError('FETCH_BAD_HEADERS', `invalid Content-Length: ${JSON.stringify(lengths.join(', ').slice(0, 80))}`);
    }
    const length = Number(only);
    return length === 0 ? { kind: 'none' } : { kind: 'length', length };
  }
  return { kind: 'close' };
}
