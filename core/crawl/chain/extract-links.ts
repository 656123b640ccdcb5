/**
 * Extract: links, title and text from the content-decoded entity (on the crawl thread up to 4
 * MiB, larger documents in a worker: core/extract/extract-pool.ts). A 304's links come from the
 * earlier capture the server says is unchanged; a seed also leads to its inferred links
 * (favicon, robots-less sitemap…); robots.txt's Sitemap: lines were found by its fetch.
 */
import { decodeBody, decodeBodyStream, parseContentEncoding, type DecodedBody } from '../../extract/decode-body.ts';
import type { Spool } from '../../fetch/spool.ts';
import { inferredLinks } from '../../extract/inferred-links.ts';
import { extractHeadersOnly } from '../../extract/document-headers.ts';
import { fieldValue as headerValue, listFieldValue } from '../../formats/http-fields.ts';
import { headMediaType as mimeOf } from '../../formats/media-type.ts';
import { mayBeSitemapBody } from '../sitemap-seeder.ts';
import { streamKind } from '../../formats/stream-kind.ts';
import type { ProcessResult, Processor } from './crawl-uri.ts';

const EXTRACTABLE = /^(text\/html|application\/xhtml\+xml|text\/css|application\/xml|text\/xml)$/;

export const extractLinks: Processor = {
  name: 'extract-links',
  reads: { settings: ['maxExtractBytes', 'maxLinksPerDocument'], services: ['extractor', 'prior'] },
  shouldProcess: (_ctx, curi) => curi.fetch !== undefined && !curi.captured,
  async process(ctx, curi): Promise<ProcessResult> {
    const { uri } = curi;
    const f = curi.fetch!;
    const status = curi.status;
    const notModified = status === 304 && curi.prior ? await ctx.prior!.served(curi.prior) : null;
    if (notModified) {
      // 304: nothing new to store, but the page's links still lead on.
      const ex = await ctx.extractor.run({ url: uri.url, status: notModified.status, headers: notModified.headers, body: notModified.body, mime: mimeOf(notModified.headers) ?? '', maxLinks: ctx.settings.maxLinksPerDocument });
      curi.outlinks = ex.outlinks;
      curi.title = ex.title;
      // A page still: a recrawl lists it among its pages (write-records.ts), as the one it stands for.
      curi.isHtml = ex.isHtml;
      curi.annotations.push('links-from-earlier-capture');
    } else if (status >= 200 && status < 400) {
      let body: Buffer = Buffer.alloc(0);
      const mime = curi.mime;
      if (f.entity && mime && (EXTRACTABLE.test(mime) || mayBeSitemapBody(uri.url, uri.hopsPath, mime) || streamKind(uri.url, mime) !== null)) {
        const decoded = await extractInput(f.entity, listFieldValue(f.headers, 'content-encoding') ?? undefined, ctx.settings.maxExtractBytes);
        body = decoded.body;
        if (decoded.truncated) curi.annotations.push('extract-capped');
        if (decoded.error) curi.annotations.push('decode-error');
      }
      const input = { url: uri.url, status, headers: f.headers, body, mime: mime ?? '', maxLinks: ctx.settings.maxLinksPerDocument };
      // No body to parse (an image, a script, a redirect): only header links, cheap enough to take
      // here without loading the HTML extractor. The decoded body is this call's own: handed over,
      // it is freed once extracted (or moved to a worker without a copy).
      const ex = body.length === 0 ? extractHeadersOnly(input) : await ctx.extractor.run(input, { handOver: true });
      if (ex.error) curi.annotations.push('extract-error');
      curi.outlinks = ex.outlinks;
      curi.title = ex.title;
      curi.text = ex.text;
      curi.isHtml = ex.isHtml;
      if (ex.truncatedLinks) curi.annotations.push('links-capped');
      // Values that looked like links but did not parse (or were over 64 KiB): dropped, but counted.
      if (ex.skipped > 0) curi.annotations.push(`unparsable-links:${ex.skipped}`);
      if (ex.nofollow) curi.annotations.push('nofollow');
    }
    if (uri.hopsPath === '' && status >= 200 && status < 300) curi.outlinks = [...curi.outlinks, ...inferredLinks(uri.url)];
    if (curi.extraOutlinks.length) curi.outlinks = [...curi.outlinks, ...curi.extraOutlinks];
    return 'proceed';
  },
};

/**
 * The entity as the extractor's own Buffer (handed over to the worker: the spool's pieces may
 * not be, the record still needs them). Decoded only when Content-Encoding says so; otherwise
 * one copy made at its final size: from memory in one join, from a file in one read, where the
 * stream joined its 64 KiB reads into a second copy of the body.
 */
/** Encoded bodies up to this size, held in memory, are inflated synchronously on the crawl thread. */
const SYNC_DECODE_MAX = 256 * 1024;

async function extractInput(entity: Spool, contentEncoding: string | undefined, maxBytes: number): Promise<DecodedBody> {
  const { layers, unsupported } = parseContentEncoding(contentEncoding);
  const held = entity.buffers();
  if (layers.length > 0 || unsupported !== undefined) {
    // A body held in memory is inflated in one synchronous call (capped as the stream is): for
    // the few KiB of a small page, a stream pipeline through zlib on the thread pool cost more
    // than the inflating itself (issue 40: bench/small-pages-bench.ts).
    if (held && entity.size <= SYNC_DECODE_MAX) {
      const encoded = held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held as Buffer[], entity.size);
      const decoded = decodeBody(encoded, contentEncoding, maxBytes);
      // A mislabelled body comes back as it was: a view of the spool's piece, which the record
      // still needs, so the extractor gets a copy of its own to free.
      return decoded.body.buffer === encoded.buffer ? { ...decoded, body: Buffer.from(decoded.body) } : decoded;
    }
    return decodeBodyStream(entity.stream(), contentEncoding, maxBytes);
  }
  const want = Math.min(entity.size, Math.max(0, Math.floor(maxBytes)));
  const body = held ? Buffer.concat(held as Buffer[], want) : await entity.read(want);
  return { body, truncated: entity.size > want };
}
