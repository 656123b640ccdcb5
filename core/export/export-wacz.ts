/**
 * `trove export --wacz FILE`: the archive as one WACZ 1.1.1 package, for ReplayWeb.page, pywb or
 * another Trove. In one pass over the WARC bytes, memory flat:
 *
 *   archive/<name>.warc.gz        every WARC, STORED (byte for byte, so offsets stay valid; with
 *                                 redactCredentials a copy with request records redacted, offsets relocated)
 *   archive/earlier-payloads.warc.gz  a recrawl's originals held by its earlier crawls (wacz-earlier-payloads.ts)
 *   indexes/index.cdx.gz          ZipNum CDXJ blocks, STORED, for every archive size
 *   indexes/index.idx             one line per block (zipnum-index.ts)
 *   pages/pages.jsonl             one line per HTML 200 page
 *   datapackage.json              resources with sha256 and size, created, software, title, main page
 *   datapackage-digest.json       sha256 of datapackage.json, optionally signed (archive/wacz-sign.ts)
 *
 * What is followed, and where it comes from (WACZ 1.1.1, specs.webrecorder.net/wacz/1.1.1, and
 * py-wacz's `wacz validate`, wacz/validate.py, which is what archivists run):
 * - datapackage.json is a Frictionless data package (`profile: "data-package"`), which
 *   `wacz validate` checks with frictionless: each resource `name` must match
 *   `^([-a-z0-9._/])+$` and be unique; `path` is the ZIP entry name and keeps its case
 *   (resourceName below). Every file in the package but the two datapackage files is listed,
 *   with `hash` "sha256:<hex>" and `bytes`; `created` is "YYYY-MM-DDTHH:MM:SSZ" (validate parses
 *   it with that format) and a signature's `created` equals it.
 * - The index is ZipNum (`indexes/index.cdx.gz` + `indexes/index.idx`) whatever the size, as
 *   py-wacz and Browsertrix write it: ReplayWeb.page loads `.idx` (and `.cdx`/`.cdxj`), pywb
 *   loads `*.cdx`/`*.cdx.gz` from a WACZ, and `wacz validate` looks for `index.cdx.gz`; only this
 *   layout satisfies all three. index.cdx.gz is STORED (validate's compression rule).
 * - pages/pages.jsonl: a header line `{"format": "json-pages-1.0", "id": "pages", "title": …}`
 *   (`hasText: true` when pages carry text), then one JSON object per page with `url` and `ts`
 *   (ISO 8601), and `id`, `title`, `text` when known (wacz-pages.ts).
 * - datapackage-digest.json: `{"path": "datapackage.json", "hash": "sha256:<hex>"}`, plus
 *   `signedData` when signed (archive/wacz-sign.ts).
 *
 * The CDXJ lines come from the capture index (capture-cdxj.ts) with offsets relative to each
 * WARC as stored in the package. A WARC's SHA-256 and CRC-32 are those recorded when it was
 * written, while the file is unchanged (file-fixity.ts); any other hash is computed while the
 * bytes stream into the ZIP (zip-writer.ts). The package is written as `FILE.part` and renamed
 * when complete.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import { fixityStillHolds } from '../archive/file-fixity.ts';
import { TroveError } from '../errors.ts';
import type { Archive } from '../archive/archive-dir.ts';
import { TROVE_VERSION } from '../api/settings.ts';
import { archiveWarcs, totalWarcBytes } from './archive-warcs.ts';
import type { ExportWarc } from './archive-warcs.ts';
import { writeRedactedWarc } from './wacz-redact.ts';
import { captureCdxjLines, countCaptureRows } from './capture-cdxj.ts';
import { sortLines } from './external-sort.ts';
import { isoSeconds, ProgressThrottle } from './export-types.ts';
import type { ProgressFn } from './export-types.ts';
import { countPages, mainPage, pageLines } from './wacz-pages.ts';
import { signHash, signingKeyWarning } from '../archive/wacz-sign.ts';
import { ZipNumBlocks } from './zipnum-index.ts';
import { readFileRange } from './file-range.ts';
import { ZipWriter } from './zip-writer.ts';
import { EARLIER_PAYLOADS_WARC, writeEarlierPayloads, type EarlierPayloads } from './wacz-earlier-payloads.ts';
import type { ZipEntryInfo } from './zip-writer.ts';

export const WACZ_VERSION = '1.1.1';
export const WACZ_SOFTWARE = `Trove ${TROVE_VERSION}`;

export interface WaczExportOptions {
  /** datapackage.json `title` (default: the crawl's name, else the archive folder's name). */
  title?: string;
  description?: string;
  /** Put each page's indexed text in pages.jsonl (`text`); bigger package, searchable offline. */
  pageText?: boolean;
  /** Sign datapackage-digest.json with this EC private key (see archive/wacz-sign.ts). */
  signingKey?: KeyObject;
  /** Lines per ZipNum block (default 3,000). */
  zipnumBlockLines?: number;
  /** Memory per sort run (see external-sort.ts). */
  maxRunBytes?: number;
  /** Folder for sort runs (default: beside the output). */
  tmpDir?: string;
  onProgress?: ProgressFn;
  /**
   * Hash every WARC as it is copied and fail (EXPORT_FIXITY_MISMATCH) when one differs from the
   * fixity recorded when it was written. Without it, a WARC whose size and mtime are unchanged
   * since then is copied with its recorded SHA-256 and CRC-32, not hashed again (file-fixity.ts).
   */
  verifyFixity?: boolean;
  /** The package's `created` time (default now). */
  now?: Date;
  /** Aborting it stops the export (CANCELLED) and removes the partial package. */
  signal?: AbortSignal;
  /** Request records get a marker for Cookie/Authorization values; the WARCs holding any are rewritten (wacz-redact.ts). */
  redactCredentials?: boolean;
}

export interface WaczExportResult {
  path: string;
  /** Size of the package. */
  bytes: number;
  warcs: number;
  /** CDXJ lines (captures) in the index. */
  captures: number;
  pages: number;
  /** Always ZipNum (index.cdx.gz + index.idx). */
  index: 'zipnum';
  signed: boolean;
  /** Set when the signing key is one ReplayWeb.page will not verify (P-256): one line saying so and how to make a P-384 key. */
  signingWarning?: string;
  /** datapackage.json `resources`. */
  resources: WaczResourceEntry[];
  /** How each WARC's hashes were had: recorded at capture, or hashed now (and checked against the record when `verifyFixity`). */
  fixity: { recorded: number; hashed: number; verified: number };
  /** WARCs whose bytes no longer match the fixity recorded when they were written (their size or mtime changed too). */
  changedSinceRecorded: string[];
  /** Request records written with their credentials redacted (`redactCredentials`). */
  redacted: number;
}

export interface WaczResourceEntry {
  name: string;
  path: string;
  hash: string;
  bytes: number;
}

export async function exportWacz(archive: Archive, out: string, opts: WaczExportOptions = {}): Promise<WaczExportResult> {
  const progress = new ProgressThrottle(opts.onProgress, opts.signal);
  const now = opts.now ?? new Date();
  const warcs = archiveWarcs(archive);
  const zip = await ZipWriter.create(out);
  try {
    // 1. The WARCs, stored (rewritten first when credentials are redacted).
    const { fixity, changedSinceRecorded, redacted } = await addWarcs(archive, zip, warcs, out, opts, progress);

    // 1b. A recrawl's payloads that its earlier crawls hold, so the package stands alone.
    const earlier = await addEarlierPayloads(archive, zip, out);

    // 2. The index, from the capture index, sorted.
    const rows = countCaptureRows(archive);
    let read = 0;
    const own = captureCdxjLines(archive, warcs, () => progress.report('index', ++read, rows, zip.bytesWritten));
    const unsorted = earlier ? (function* () {
      yield* own;
      yield* earlier.cdxj;
    })() : own;
    const sorted = sortLines(unsorted, { tmpDir: opts.tmpDir ?? `${out}.sort-tmp`, ...(opts.maxRunBytes ? { maxRunBytes: opts.maxRunBytes } : {}) });
    const blocks = new ZipNumBlocks(opts.zipnumBlockLines);
    await zip.addStream('indexes/index.cdx.gz', blocks.blocks(sorted));
    const captures = blocks.lines;
    await zip.addBuffer('indexes/index.idx', Buffer.from(blocks.idxText(), 'utf8'), { compress: true });

    // 3. Pages.
    const settings = archive.meta<{ name?: string; seeds?: string[] }>('settings');
    const pageTotal = countPages(archive);
    let pages = 0;
    const pageChunks = (async function* () {
      for (const line of pageLines(archive, { text: opts.pageText === true, onPage: () => progress.report('pages', ++pages, pageTotal, zip.bytesWritten) })) {
        yield Buffer.from(line, 'utf8');
      }
    })();
    await zip.addStream('pages/pages.jsonl', pageChunks, { compress: true });

    // 4. datapackage.json and its digest.
    progress.report('finish', 0, 1, zip.bytesWritten);
    const names = new Set<string>();
    const resources = zip.entries.map((e) => resourceOf(e, names));
    const created = isoSeconds(now);
    const main = mainPage(archive, settings?.seeds ?? []);
    const datapackage: Record<string, unknown> = {
      profile: 'data-package',
      wacz_version: WACZ_VERSION,
      resources,
      created,
      software: WACZ_SOFTWARE,
      title: opts.title ?? settings?.name ?? path.basename(archive.dir),
    };
    if (opts.description) datapackage.description = opts.description;
    if (main) {
      datapackage.mainPageUrl = main.url;
      datapackage.mainPageDate = main.date;
    }
    const dpBytes = Buffer.from(JSON.stringify(datapackage, null, 2), 'utf8');
    const dpEntry = await zip.addBuffer('datapackage.json', dpBytes, { compress: true });
    const digest: Record<string, unknown> = { path: 'datapackage.json', hash: `sha256:${dpEntry.sha256}` };
    if (opts.signingKey) digest.signedData = signHash(`sha256:${dpEntry.sha256}`, opts.signingKey, created, WACZ_SOFTWARE);
    await zip.addBuffer('datapackage-digest.json', Buffer.from(JSON.stringify(digest, null, 2), 'utf8'), { compress: true });
    await zip.close();
    const bytes = zip.bytesWritten;
    progress.done('finish', 1, 1, bytes);
    const signingWarning = opts.signingKey ? signingKeyWarning(opts.signingKey) : undefined;
    return { path: out, bytes, warcs: warcs.length + (earlier ? 1 : 0), captures, pages, index: 'zipnum', signed: opts.signingKey !== undefined, ...(signingWarning ? { signingWarning } : {}), resources, fixity, changedSinceRecorded, redacted };
  } catch (err) {
    await zip.abort();
    throw err;
  }
}

/**
 * Each WARC into the ZIP, STORED: byte for byte with its recorded fixity when it still holds, or
 * with `redactCredentials` a copy whose request records carry the marker (wacz-redact.ts; the
 * WARC's `relocate` is set so the index points into the copy).
 */
async function addWarcs(
  archive: Archive,
  zip: ZipWriter,
  warcs: ExportWarc[],
  out: string,
  opts: WaczExportOptions,
  progress: ProgressThrottle,
): Promise<{ fixity: WaczExportResult['fixity']; changedSinceRecorded: string[]; redacted: number }> {
  const totalBytes = totalWarcBytes(warcs);
  let copied = 0;
  const fixity = { recorded: 0, hashed: 0, verified: 0 };
  const changedSinceRecorded: string[] = [];
  let redacted = 0;
  const counted = (chunks: AsyncIterable<Buffer>) =>
    (async function* () {
      for await (const c of chunks) {
        copied += c.length;
        progress.report('warcs', copied, totalBytes, zip.bytesWritten);
        yield c;
      }
    })();
  for (const w of warcs) {
    const copy = opts.redactCredentials ? await writeRedactedWarc(archive, w, `${out}.redact.warc`) : null;
    if (copy) {
      try {
        await zip.addStream(`archive/${w.name}`, counted(readFileRange(copy.file, 0, copy.size)), { size: copy.size });
      } finally {
        await fsp.rm(copy.file, { force: true });
      }
      w.relocate = copy.relocate;
      redacted += copy.redacted;
      fixity.hashed++;
      continue;
    }
    const recorded = archive.index.fixity(w.fileId);
    const trusted = !opts.verifyFixity && recorded && fixityStillHolds(recorded, await fsp.stat(w.source), w.size) ? recorded : null;
    const entry = await zip.addStream(`archive/${w.name}`, counted(readFileRange(w.source, w.start, w.size)), { size: w.size, ...(trusted ? { known: trusted } : {}) });
    if (trusted) {
      fixity.recorded++;
      continue;
    }
    fixity.hashed++;
    if (!recorded || recorded.bytes !== w.size) continue;
    if (recorded.sha256 === entry.sha256) {
      if (opts.verifyFixity) fixity.verified++;
      continue;
    }
    if (opts.verifyFixity) {
      throw new TroveError(
        'EXPORT_FIXITY_MISMATCH',
        `${w.name}: its bytes no longer match the SHA-256 recorded on ${new Date(recorded.recordedAt).toISOString()} (${recorded.sha256}, now ${entry.sha256}); the file changed or was damaged since it was written`,
        { file: w.source, recorded: recorded.sha256, actual: entry.sha256 },
      );
    }
    changedSinceRecorded.push(w.name);
  }
  return { fixity, changedSinceRecorded, redacted };
}

/** Pack the WARC of a recrawl's earlier payloads (wacz-earlier-payloads.ts), if it needs one. */
async function addEarlierPayloads(archive: Archive, zip: ZipWriter, out: string): Promise<EarlierPayloads | null> {
  const tmp = `${out}.earlier.warc.gz`;
  const earlier = await writeEarlierPayloads(archive, tmp);
  if (!earlier) return null;
  try {
    await zip.addStream(`archive/${EARLIER_PAYLOADS_WARC}`, readFileRange(tmp, 0, earlier.size), { size: earlier.size });
  } finally {
    await fsp.rm(tmp, { force: true });
  }
  return earlier;
}

function resourceOf(e: ZipEntryInfo, taken: Set<string>): WaczResourceEntry {
  return { name: resourceName(e.name, taken), path: e.name, hash: `sha256:${e.sha256}`, bytes: e.size };
}

/**
 * A data-package resource name for a ZIP entry: its file name lowercased, as py-wacz does, with
 * any character outside `[-a-z0-9._/]` (Trove's WARC names carry `~`) replaced by `-`, and a
 * `-2`, `-3`… before the extension when two entries would get the same name.
 */
export function resourceName(entryName: string, taken: Set<string>): string {
  const base = path.posix.basename(entryName).toLowerCase().replace(/[^-a-z0-9._/]/g, '-') || 'resource';
  let name = base;
  for (let n = 2; taken.has(name); n++) {
    const dot = base.indexOf('.');
    name = dot > 0 ? `${base.slice(0, dot)}-${n}${base.slice(dot)}` : `${base}-${n}`;
  }
  taken.add(name);
  return name;
}
