/**
 * Captures of earlier crawls, for deduplication across crawls (`--dedup-from <crawl dir or
 * CDXJ>`, Heritrix's and Browsertrix's habit): a payload already archived elsewhere is written
 * as a revisit that points at it, and a URL already held is fetched with a conditional request
 * (If-None-Match / If-Modified-Since from the earlier capture's headers); a 304 becomes a
 * `server-not-modified` revisit, and its links are taken from the earlier capture's body so the
 * crawl still goes on past it. A CDXJ source gives digests only (no headers to read).
 */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { openArchive, type Archive } from '../archive/archive-dir.ts';
import type { CaptureRow } from '../archive/capture-index.ts';
import { readCapturePayload } from '../archive/capture-payload.ts';
import { PriorCaptureStore, sourceResponses } from '../archive/prior-capture-store.ts';
import type { PriorCaptureInsert, PriorCaptureRow } from '../archive/prior-capture-store.ts';
import { isTroveError, TroveError } from '../errors.ts';
import { readCdxjLines } from '../archive/cdxj-read.ts';
import { getMeta, setMeta } from '../storage/meta.ts';
import type { CrawlNote } from '../api/error-codes.ts';
import { isoFromTimestamp14 } from '../formats/timestamp.ts';

export type PriorCapture = PriorCaptureRow;

/** Decoded body bytes read from an earlier capture (for its links after a 304), as replay's cap. */
const SERVED_MAX_BYTES = 256 << 20;

const BATCH = 5000;

/** pywb writes digests without the algorithm; Trove stores `sha1:BASE32`. */
function normalizeDigest(d: unknown): string | null {
  if (typeof d !== 'string' || d === '' || d === '-') return null;
  return d.includes(':') ? d : `sha1:${d}`;
}

export class PriorCaptures {
  private db: Database.Database;
  private store: PriorCaptureStore;
  private archives = new Map<string, Archive | null>();

  constructor(db: Database.Database) {
    this.db = db;
    this.store = new PriorCaptureStore(db);
  }

  /** Load each source not loaded before (the list is kept in meta, so a resume does not reload). */
  async load(sources: string[]): Promise<CrawlNote[]> {
    const done = new Set(getMeta<string[]>(this.db, 'dedupFromLoaded') ?? []);
    const notes: CrawlNote[] = [];
    for (const given of sources) {
      const src = path.resolve(given);
      if (done.has(src)) continue;
      const n = fs.statSync(src, { throwIfNoEntry: false })?.isDirectory() ? this.loadCrawlDir(src) : await this.loadCdxj(src);
      done.add(src);
      setMeta(this.db, 'dedupFromLoaded', [...done]);
      notes.push({ code: 'DEDUP_LOADED', message: `loaded ${n} earlier captures from ${src} for deduplication` });
    }
    return notes;
  }

  private insertBatch(rows: PriorCaptureInsert[]): void {
    this.store.insert(rows);
  }

  private loadCrawlDir(dir: string): number {
    const dbPath = path.join(dir, 'crawl.sqlite');
    if (!fs.existsSync(dbPath)) throw new TroveError('DEDUP_SOURCE_INVALID', `--dedup-from ${dir}: not a crawl directory (no crawl.sqlite)`);
    let n = 0;
    let batch: PriorCaptureInsert[] = [];
    for (const [urlkey, url, ts, date, status, digest, recordId, file, offset, length] of sourceResponses(dbPath)) {
      batch.push([dir, urlkey, url, ts, date ?? isoFromTimestamp14(ts), status, digest, recordId, path.resolve(dir, file), offset, length]);
      if (batch.length >= BATCH) {
        this.insertBatch(batch);
        n += batch.length;
        batch = [];
      }
    }
    this.insertBatch(batch);
    n += batch.length;
    return n;
  }

  private async loadCdxj(file: string): Promise<number> {
    if (!fs.existsSync(file)) throw new TroveError('DEDUP_SOURCE_INVALID', `--dedup-from ${file}: no such file or directory`);
    let batch: PriorCaptureInsert[] = [];
    let n = 0;
    try {
      // Every line must be CDXJ (blank lines, comments and `!meta` aside): a garbled file or
      // one in another format is an error naming the line, not a silent "0 captures".
      for await (const c of readCdxjLines(fs.createReadStream(file), file)) {
        const status = c.json.status === undefined ? null : Number(c.json.status);
        batch.push([file, c.urlkey, c.json.url as string, c.timestamp, isoFromTimestamp14(c.timestamp), Number.isFinite(status) ? status : null, normalizeDigest(c.json.digest), null, null, null, null]);
        if (batch.length >= BATCH) {
          this.insertBatch(batch);
          n += batch.length;
          batch = [];
        }
      }
    } catch (err) {
      // Nothing of a source that failed half-way stays behind to be loaded twice later.
      this.store.deleteSource(file);
      if (isTroveError(err, 'CDXJ_BAD_LINE')) {
        throw new TroveError('DEDUP_SOURCE_INVALID', `--dedup-from ${err.message}`, { ...err.details, file }, { cause: err });
      }
      if (isTroveError(err)) throw err;
      throw new TroveError('DEDUP_SOURCE_INVALID', `--dedup-from ${file}: cannot read it: ${(err as Error).message}`, { file }, { cause: err });
    }
    this.insertBatch(batch);
    return n + batch.length;
  }

  /** The latest successful earlier capture of a URL (by its SURT key). */
  latest(urlkey: string, url: string): PriorCapture | null {
    const r = this.store.latest(urlkey);
    if (!r || r.url === url) return r;
    // Another URL with the same key (its http or https twin): this URL's own capture, if any.
    return this.store.latestOfUrl(urlkey, url);
  }

  /** The earliest earlier capture with this payload digest (optionally of this URL only). */
  byDigest(digest: string, url?: string): PriorCapture | null {
    return this.store.byDigest(digest, url);
  }

  /**
   * The earlier capture's response (archived headers + decoded body), read from that very record
   * in its crawl directory (not whichever capture replay would choose for its URL and time), or
   * null when the source is a CDXJ file or the record cannot be read. `maxBytes` 0 reads the
   * head only.
   */
  async served(p: PriorCapture, maxBytes = SERVED_MAX_BYTES): Promise<{ headers: [string, string][]; body: Buffer; status: number } | null> {
    const archive = this.archiveFor(p.source);
    if (!archive) return null;
    try {
      const row = this.recordOf(archive, p);
      const r = row ? await readCapturePayload(archive, row, maxBytes) : null;
      return r ? { headers: r.headers, body: r.body, status: r.status } : null;
    } catch {
      return null;
    }
  }

  /** The source's index row of a prior capture: by record id, else the response of that URL at that time. */
  private recordOf(archive: Archive, p: PriorCapture): CaptureRow | null {
    if (p.recordId) return archive.index.byRecordId(p.recordId);
    return archive.index.findCaptures(p.urlkey).find((c) => c.recordType === 'response' && c.ts === p.ts && c.targetUri === p.url) ?? null;
  }

  /** If-None-Match / If-Modified-Since from the earlier capture's validators (its head only is read). */
  async conditionalHeaders(p: PriorCapture): Promise<[string, string][]> {
    const served = await this.served(p, 0);
    if (!served) return [];
    const out: [string, string][] = [];
    for (const [k, v] of served.headers) {
      const name = k.toLowerCase();
      if (name === 'etag') out.push(['If-None-Match', v]);
      else if (name === 'last-modified') out.push(['If-Modified-Since', v]);
    }
    return out;
  }

  private archiveFor(source: string): Archive | null {
    if (!this.archives.has(source)) {
      let a: Archive | null = null;
      try {
        if (fs.statSync(source).isDirectory()) a = openArchive(source, { create: false });
      } catch {
        a = null;
      }
      this.archives.set(source, a);
    }
    return this.archives.get(source) ?? null;
  }

  close(): void {
    for (const a of this.archives.values()) a?.close();
    this.archives.clear();
  }
}
