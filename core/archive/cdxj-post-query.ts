/**
 * The request body of a POST (or PUT, or any non-GET) capture turned into a query string, so
 * its CDXJ key can tell two POSTs to one URL apart: pywb's MethodQueryCanonicalizer, which
 * warcio.js's postToGetUrl (used by ReplayWeb.page at lookup time) follows.
 *
 * - application/x-www-form-urlencoded: the body as is
 * - application/json: the JSON flattened to `key=value` pairs (repeated keys get `.2_`, `.3_` …)
 * - text/plain: flattened like JSON when it parses as JSON, else base64 (pywb; warcio.js gives
 *   an empty query here, which looks like a bug)
 * - multipart/form-data: the form fields (`name=value`)
 * - anything else: `__wb_post_data=` + base64 of the raw body
 *
 * The body is used as stored: a chunked request body is not de-chunked (pywb and warcio.js do
 * the same, and the keys in the corpus's EXPECTED.json show it).
 */
import { mediaType } from '../formats/media-type.ts';

/** pywb's and warcio.js's cut-off for the query built from a body. */
export const MAX_POST_QUERY = 4096;

/** The query string for a request body (cut at `max` characters), as CDXJ `requestBody` shows it. */
export function postQuery(contentType: string | null, body: Buffer, max = MAX_POST_QUERY): string {
  const mime = mediaType(contentType) ?? '';
  let q: string;
  switch (mime) {
    case 'application/x-www-form-urlencoded':
      q = body.toString('utf8');
      break;
    case 'application/json':
      q = jsonToQuery(body.toString('utf8')) ?? '';
      break;
    case 'text/plain':
      q = jsonToQuery(body.toString('utf8')) ?? base64Query(body);
      break;
    case 'multipart/form-data':
      q = multipartToQuery(body, contentType!);
      break;
    default:
      q = base64Query(body);
  }
  return q.length > max ? q.slice(0, max) : q;
}

/** The form of the query appended to the URL before SURT-ing: percent-escapes decoded as decodeURI does. */
export function keyQuery(requestBody: string): string {
  try {
    return decodeURI(requestBody);
  } catch {
    return '';
  }
}

function base64Query(body: Buffer): string {
  return `__wb_post_data=${body.toString('base64')}`;
}

/** Flatten JSON to query pairs; null when the text is not JSON. */
function jsonToQuery(text: string): string | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  const params = new URLSearchParams();
  const dupes = new Map<string, number>();
  const keyFor = (name: string): string => {
    if (!params.has(name)) return name;
    const n = (dupes.get(name) ?? 1) + 1;
    dupes.set(name, n);
    return `${name}.${n}_`;
  };
  const walk = (value: unknown, name: string): void => {
    if (Array.isArray(value)) {
      for (const v of value) walk(v, name);
    } else if (value === null) {
      params.set(keyFor(name), 'null');
    } else if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, k);
    } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      const s = String(value);
      if (s !== '') params.set(keyFor(name), s);
    }
  };
  walk(data, '');
  return params.toString();
}

/** `name=value` for each part of a multipart/form-data body (file parts included, as pywb does). */
function multipartToQuery(body: Buffer, contentType: string): string {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const params = new URLSearchParams();
  if (!m) return '';
  const delimiter = Buffer.from(`--${m[1] ?? m[2]}`, 'latin1');
  let pos = body.indexOf(delimiter);
  while (pos >= 0) {
    const start = pos + delimiter.length;
    if (body[start] === 0x2d && body[start + 1] === 0x2d) break; // the closing delimiter
    const next = body.indexOf(delimiter, start);
    const part = body.subarray(start, next < 0 ? body.length : next);
    const headEnd = part.indexOf('\r\n\r\n');
    if (headEnd >= 0) {
      const head = part.toString('utf8', 0, headEnd);
      const name = /content-disposition:[^\r\n]*?[;\s]name="([^"]*)"/i.exec(head)?.[1];
      if (name !== undefined) {
        let value = part.subarray(headEnd + 4);
        if (value.subarray(-2).toString('latin1') === '\r\n') value = value.subarray(0, -2);
        params.append(name, value.toString('utf8'));
      }
    }
    pos = next;
  }
  return params.toString();
}
