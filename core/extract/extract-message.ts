/**
 * The compact form in which an extraction result crosses from a worker to the crawl loop.
 *
 * postMessage's structured clone writes and reads every outlink object property by property, on
 * both threads; a page with thousands of links then costs the main thread more than it should.
 * Packed, the outlinks travel as three strings and a small table: URLs joined by newlines (a
 * serialized http(s) URL never holds one: the URL parser drops tabs and newlines and
 * percent-encodes other controls), one hop character per link, and per link one UTF-16 code
 * unit indexing a table of the distinct contexts (`a/@href`, `img/@src` …). The text is one
 * string already. Anything that does not fit that shape (a URL with a newline, more than 65,535
 * distinct contexts) travels as the plain array instead, so packing never loses anything.
 */
import type { DocumentExtraction } from './extraction-types.ts';
import type { Hop, Outlink } from './outlink.ts';

export interface PackedLinks {
  count: number;
  /** URLs joined by '\n'. */
  urls: string;
  /** One hop letter per link. */
  hops: string;
  /** One code unit per link: its index in `contextTable`. */
  contexts: string;
  contextTable: string[];
}

export type PackedExtraction = Omit<DocumentExtraction, 'outlinks'> & { links: PackedLinks | Outlink[] };

const MAX_CONTEXTS = 0xffff;

export function packExtraction(result: DocumentExtraction): PackedExtraction {
  const { outlinks, ...rest } = result;
  return { ...rest, links: packLinks(outlinks) };
}

export function unpackExtraction(packed: PackedExtraction): DocumentExtraction {
  const { links, ...rest } = packed;
  return { outlinks: Array.isArray(links) ? links : unpackLinks(links), ...rest };
}

export function packLinks(outlinks: Outlink[]): PackedLinks | Outlink[] {
  const n = outlinks.length;
  const urls = new Array<string>(n);
  const hops = new Array<string>(n);
  const contexts = new Array<number>(n);
  const table: string[] = [];
  const index = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const link = outlinks[i]!;
    if (link.url.includes('\n') || link.hop.length !== 1) return outlinks;
    urls[i] = link.url;
    hops[i] = link.hop;
    let c = index.get(link.context);
    if (c === undefined) {
      if (table.length >= MAX_CONTEXTS) return outlinks;
      c = table.length;
      table.push(link.context);
      index.set(link.context, c);
    }
    contexts[i] = c;
  }
  let contextCodes = '';
  // fromCharCode in slices: one call with a huge argument list could overflow the stack.
  for (let i = 0; i < n; i += 4096) contextCodes += String.fromCharCode(...contexts.slice(i, i + 4096));
  return { count: n, urls: urls.join('\n'), hops: hops.join(''), contexts: contextCodes, contextTable: table };
}

export function unpackLinks(packed: PackedLinks): Outlink[] {
  const n = packed.count;
  const out: Outlink[] = [];
  if (n === 0) return out;
  const { urls, hops, contexts, contextTable } = packed;
  let start = 0;
  for (let i = 0; i < n; i++) {
    let end = urls.indexOf('\n', start);
    if (end < 0) end = urls.length;
    out.push({ url: urls.slice(start, end), hop: hops[i] as Hop, context: contextTable[contexts.charCodeAt(i)]! });
    start = end + 1;
  }
  return out;
}
