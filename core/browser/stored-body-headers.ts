/**
 * Response headers that describe the body a browser capture stores. Chromium hands the recorder
 * the body after it removed the transfer framing and the content-coding, so the headers as
 * received no longer describe those bytes. Browsertrix Crawler (src/util/reqresp.ts,
 * `_getHeadersDict`) and ArchiveWeb.page (src/requestresponseinfo.ts) keep such a header under an
 * `x-orig-` prefix (`Content-Encoding`, `Transfer-Encoding`) and set `Content-Length` to the
 * stored length; we do the same so ReplayWeb.page, pywb and Trove's replay read the records
 * alike. HTTP/2 pseudo-headers (`:status`, …) are dropped, and a value Chromium joined with a
 * newline (repeated fields) is split back into repeated fields. See docs/FORMATS.md.
 */

/** Header names whose value stops describing a decoded body; kept as `x-orig-<name>`. */
const RENAMED = new Set(['content-encoding', 'transfer-encoding']);

export function storedBodyHeaders(received: readonly [string, string][], bodyLength: number): [string, string][] {
  const out: [string, string][] = [];
  let sawLength = false;
  for (const [name, value] of received) {
    if (name.startsWith(':')) continue;
    const lower = name.toLowerCase();
    if (lower === 'content-length') {
      if (!sawLength) out.push([name, String(bodyLength)]);
      sawLength = true;
      continue;
    }
    out.push([RENAMED.has(lower) ? `x-orig-${name}` : name, value]);
  }
  // A body sent chunked (or closed-delimited) had no length; the stored one has.
  if (!sawLength) out.push(['Content-Length', String(bodyLength)]);
  return out;
}

/**
 * A header map as CDP reports it (`Network.Headers`: one entry per name, repeated fields joined
 * by a newline) as a list of fields, repeated ones split back apart.
 */
export function headerList(headers: Record<string, string> | undefined | null): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    for (const v of String(value).split('\n')) out.push([name, v]);
  }
  return out;
}
