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
import Database from 'better-sqlite3';
import { openArchive, type Archive } from '../archive/archive-dir.ts';
import { replay } from '../replay/replay.ts';
import { isTroveError, TroveError } from '../errors.ts';
import { readCdxjLines } from '../archive/cdxj-read.ts';
import { getMeta, setMeta } from '../storage/meta.ts';
import type { CrawlNote } from '../api/error-codes.ts';

export interface PriorCapture {
  source: string;
  urlkey: string;
  url: string;
  ts: string;
  date: string;
  status: number | null;
  digest: string | null;
  recordId: string | null;
}


const BATCH = 5000;

function isoFrom14(ts: string): string {
  const t = (ts + '00000000000000').slice(0, 14);
  return `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}Z`;
}

/** pywb writes digests without the algorithm; Trove stores `sha1:BASE32`. */
function normalizeDigest(d: unknown): string | null {
  if (typeof d !== 'string' || d === '' || d === '-') return null;
  return d.includes(':') ? d : `sha1:${d}`;
}

export class PriorCaptures {
  private db: Database.Database;
  private archives = new Map<string, Archive | null>();
  private latestStmt: Database.Statement;
  private digestStmt: Database.Statement;
  private digestUrlStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.db = db;
    // Columns named as PriorCapture's fields, so a row is a capture as it comes.
    const cols = 'source, urlkey, url, ts, date, status, digest, record_id AS recordId';
    this.latestStmt = db.prepare(`SELECT ${cols} FROM prior_captures WHERE urlkey = ? AND status BETWEEN 200 AND 299 ORDER BY ts DESC LIMIT 1`);
    this.digestStmt = db.prepare(`SELECT ${cols} FROM prior_captures WHERE digest = ? ORDER BY ts LIMIT 1`);
    this.digestUrlStmt = db.prepare(`SELECT ${cols} FROM prior_captures WHERE digest = ? AND url = ? ORDER BY ts LIMIT 1`);
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

  private insertBatch(rows: (string | number | null)[][]): void {
    const ins = this.db.prepare(
      'INSERT INTO prior_captures (source, urlkey, url, ts, date, status, digest, record_id, file, offset, length) VALUES (?,?,?,?,?,?,?,?,?,?,?)',
    );
    this.db.transaction(() => {
      for (const r of rows) ins.run(...r);
    })();
  }

  private loadCrawlDir(dir: string): number {
    const dbPath = path.join(dir, 'crawl.sqlite');
    if (!fs.existsSync(dbPath)) throw new TroveError('DEDUP_SOURCE_INVALID', `--dedup-from ${dir}: not a crawl directory (no crawl.sqlite)`);
    const src = new Database(dbPath, { readonly: true, fileMustExist: true });
    let n = 0;
    try {
      const rows = src
        .prepare(
          `SELECT r.urlkey, r.target_uri, r.ts, r.date, r.status, r.payload_digest, r.record_id, f.path, r.offset, r.length
           FROM records r JOIN warc_files f ON f.id = r.file_id
           WHERE r.record_type = 'response' AND r.urlkey IS NOT NULL AND r.target_uri IS NOT NULL AND r.ts IS NOT NULL`,
        )
        .raw()
        .iterate() as Iterable<[string, string, string, string | null, number | null, string | null, string | null, string, number, number]>;
      let batch: (string | number | null)[][] = [];
      for (const [urlkey, url, ts, date, status, digest, recordId, file, offset, length] of rows) {
        batch.push([dir, urlkey, url, ts, date ?? isoFrom14(ts), status, digest, recordId, path.resolve(dir, file), offset, length]);
        if (batch.length >= BATCH) {
          this.insertBatch(batch);
          n += batch.length;
          batch = [];
        }
      }
      this.insertBatch(batch);
      n += batch.length;
    } finally {
      src.close();
    }
    return n;
  }

  private async loadCdxj(file: string): Promise<number> {
    if (!fs.existsSync(file)) throw new TroveError('DEDUP_SOURCE_INVALID', `--dedup-from ${file}: no such file or directory`);
    let batch: (string | number | null)[][] = [];
    let n = 0;
    try {
      // Every line must be CDXJ (blank lines, comments and `!meta` aside): a garbled file or
      // one in another format is an error naming the line, not a silent "0 captures".
      for await (const c of readCdxjLines(fs.createReadStream(file), file)) {
        const status = c.json.status === undefined ? null : Number(c.json.status);
        batch.push([file, c.urlkey, c.json.url as string, c.timestamp, isoFrom14(c.timestamp), Number.isFinite(status) ? status : null, normalizeDigest(c.json.digest), null, null, null, null]);
        if (batch.length >= BATCH) {
          this.insertBatch(batch);
          n += batch.length;
          batch = [];
        }
      }
    } catch (err) {
      // Nothing of a source that failed half-way stays behind to be loaded twice later.
      this.db.prepare('DELETE FROM prior_captures WHERE source = ?').run(file);
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
    const r = this.latestStmt.get(urlkey) as PriorCapture | undefined;
    return r && r.url === url ? r : null;
  }

  /** The earliest earlier capture with this payload digest (optionally of this URL only). */
  byDigest(digest: string, url?: string): PriorCapture | null {
    return ((url === undefined ? this.digestStmt.get(digest) : this.digestUrlStmt.get(digest, url)) as PriorCapture | undefined) ?? null;
  }

  /** The earlier capture as replay would serve it (headers + decoded body), when its source is a crawl directory. */
  async served(p: PriorCapture): Promise<{ headers: [string, string][]; body: Buffer; status: number } | null> {
    const archive = this.archiveFor(p.source);
    if (!archive) return null;
    try {
      const r = await replay(archive, { url: p.url, at: p.ts });
      return r.kind === 'archived' ? { headers: r.headers, body: r.body, status: r.status } : null;
    } catch {
      return null;
    }
  }

  /** If-None-Match / If-Modified-Since from the earlier capture's validators. */
  async conditionalHeaders(p: PriorCapture): Promise<[string, string][]> {
    const served = await this.served(p);
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
