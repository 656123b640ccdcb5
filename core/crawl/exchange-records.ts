/**
 * A browser-recorded exchange (core/browser) as the crawl's capture input (capture-records.ts), so
 * browser captures get the same request/response records, digests, revisits and index rows as
 * HTTP captures: the exchange becomes a FetchResult whose heads are rebuilt from the headers
 * CDP reported and whose body is the one the browser got.
 *
 * What differs from the HTTP fetcher's wire-exact records, and why (docs/FORMATS.md, "Browser
 * capture"): the browser gives headers and a decoded body, not bytes off the socket, so the
 * response head is written from the reported fields with `Content-Encoding` and
 * `Transfer-Encoding` kept as `x-orig-…` and `Content-Length` set to the stored body
 * (stored-body-headers.ts); HTTP/2 and HTTP/3 responses are written with an HTTP/1.1 status
 * line, since WARC readers (warcio, pywb, Trove's own) expect an HTTP/1.x one. The request record's block is the
 * request head plus the request body (POST, PUT).
 */
import fs from 'node:fs';
import { RunningDigest, sha1OfParts } from '../formats/digest.ts';
import { spoolFromBuffer, spoolFromFile, type Spool } from '../fetch/spool.ts';
import type { FetchResult } from '../fetch/fetcher.ts';
import type { CaptureGroupInput, RevisitOf } from './capture-records.ts';
import { fieldValue as headerValue } from '../formats/http-fields.ts';
import type { RecordedExchange } from '../browser/recorded-exchange.ts';
import { storedBodyHeaders } from '../browser/stored-body-headers.ts';

/** A field value safe to write on one header line. */
function oneLine(v: string): string {
  return v.replace(/[\r\n]+/g, ' ');
}

function headLines(first: string, headers: readonly [string, string][]): Buffer {
  let s = first + '\r\n';
  for (const [k, v] of headers) s += `${oneLine(k)}: ${oneLine(v)}\r\n`;
  return Buffer.from(s + '\r\n', 'latin1');
}

/** The request line and headers as sent, plus the body when there was one. */
export function requestBlock(x: RecordedExchange): Buffer {
  const u = new URL(x.url);
  const version = x.httpVersion === 'HTTP/1.0' ? 'HTTP/1.0' : 'HTTP/1.1';
  const headers = x.requestHeaders.filter(([k]) => !k.startsWith(':'));
  // HTTP/2 sends :authority instead of Host; an HTTP/1.1 request line needs Host.
  if (headerValue(headers, 'host') === null) headers.unshift(['Host', u.host]);
  const head = headLines(`${x.method} ${u.pathname}${u.search} ${version}`, headers);
  return x.requestBody && x.requestBody.length > 0 ? Buffer.concat([head, x.requestBody]) : head;
}

/** The response status line and headers, describing the stored (decoded) body. */
export function responseHead(x: RecordedExchange, bodyLength: number): Buffer {
  const version = x.httpVersion === 'HTTP/1.0' ? 'HTTP/1.0' : 'HTTP/1.1';
  return headLines(`${version} ${x.status} ${oneLine(x.statusText)}`.trimEnd(), storedBodyHeaders(x.responseHeaders, bodyLength));
}

async function digests(head: Buffer, body: Spool): Promise<{ block: string; payload: string }> {
  // A body held in memory is hashed from its pieces; only a spooled one is read back as a stream.
  const held = body.buffers();
  if (held) return { block: sha1OfParts([head, ...held]), payload: sha1OfParts(held) };
  const block = new RunningDigest();
  const payload = new RunningDigest();
  block.update(head);
  for await (const chunk of body.stream()) {
    block.update(chunk as Buffer);
    payload.update(chunk as Buffer);
  }
  return { block: block.digest(), payload: payload.digest() };
}

/**
 * The exchange as a FetchResult. A spooled body's file becomes the result's spool: disposing
 * the result's body removes it, as with the HTTP fetcher.
 */
export async function exchangeFetchResult(x: RecordedExchange): Promise<FetchResult> {
  const body = Buffer.isBuffer(x.body) ? spoolFromBuffer(x.body) : spoolFromFile(x.body.path, fs.statSync(x.body.path).size);
  const head = responseHead(x, body.size);
  const d = await digests(head, body);
  const requestHead = requestBlock(x);
  return {
    url: x.url,
    startedAt: x.date.getTime(),
    durationMs: 0,
    remoteAddress: x.remoteAddress ?? null,
    outcome: x.status,
    error: null,
    status: x.status,
    statusText: x.statusText,
    httpVersion: x.httpVersion === 'HTTP/1.0' ? '1.0' : '1.1',
    headers: storedBodyHeaders(x.responseHeaders, body.size),
    requestHead,
    responseHead: head,
    body,
    entity: body,
    truncated: null,
    blockDigest: d.block,
    payloadDigest: d.payload,
    bytesReceived: head.length + body.size,
  };
}

/** The capture input for buildCaptureGroup; the caller decides revisits and the metadata record. */
export async function exchangeCaptureInput(
  x: RecordedExchange,
  opts: { revisitOf?: RevisitOf | null; metadata?: CaptureGroupInput['metadata'] } = {},
): Promise<CaptureGroupInput> {
  // Fetched by Trove beside the page (whole media, stream segments): already a wire-exact capture.
  if (x.fetched) return { url: x.url.split('#')[0]!, date: x.date, fetch: x.fetched, revisitOf: opts.revisitOf ?? null, metadata: opts.metadata ?? null, bodyBuffer: null };
  const fetch = await exchangeFetchResult(x);
  return {
    // A fragment is never sent; CDP reports it apart, but a page-made URL may still carry one.
    url: x.url.split('#')[0]!,
    date: x.date,
    fetch,
    revisitOf: opts.revisitOf ?? null,
    metadata: opts.metadata ?? null,
    bodyBuffer: Buffer.isBuffer(x.body) ? x.body : null,
  };
}
