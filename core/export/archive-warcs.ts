/**
 * The WARC files of an archive as an export sees them: where each one's bytes are (a crawl file,
 * a WARC imported in place, or a STORED entry inside an imported .wacz), how long it is, and the
 * name it gets in the export. CDXJ `filename` and `offset` are relative to that name and start,
 * so an index written from here points into the WARCs as exported, wherever they came from.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Archive } from '../archive/archive-dir.ts';
import { TroveError } from '../errors.ts';

export interface ExportWarc {
  fileId: number;
  /** warc_files.path. */
  storedPath: string;
  /** Absolute path of the file holding the bytes (the .wacz for an entry). */
  source: string;
  /** Where the WARC starts in `source` (an entry's data start; 0 for a plain file). */
  start: number;
  /** Length of the WARC in bytes. */
  size: number;
  /** Name in the export (unique among the archive's WARCs). */
  name: string;
  /** Records indexed from it. */
  records: number;
  /** Where a record at this offset of `source` is in the WARC as exported, when that is not `offset - start` (a redacted copy: wacz-redact.ts). */
  relocate?: (offset: number) => number;
}

/** Every WARC of the archive, in registration order. Throws when one is missing or still being written. */
export function archiveWarcs(archive: Archive): ExportWarc[] {
  const used = new Set<string>();
  const out: ExportWarc[] = [];
  for (const f of archive.index.files()) {
    const entry = archive.waczEntry(f.path);
    const source = archive.resolveFile({ path: f.path });
    let start = 0;
    let size: number;
    let base: string;
    if (entry) {
      if (f.size === null) {
        throw new TroveError('EXPORT_WARC_UNKNOWN_SIZE', `the size of ${f.name} is not recorded; re-import ${entry.wacz}`, { path: f.path });
      }
      if (!fs.existsSync(entry.wacz)) throw missing(f.path, entry.wacz);
      start = entry.dataOffset;
      size = f.size;
      base = path.posix.basename(entry.entry);
    } else {
      const st = fs.statSync(source, { throwIfNoEntry: false });
      if (!st) {
        if (fs.existsSync(`${source}.open`)) {
          throw new TroveError('EXPORT_CRAWL_RUNNING', `${path.basename(source)} is still being written (a crawl is running in this archive); stop it first`, {
            path: source,
          });
        }
        throw missing(f.path, source);
      }
      size = st.size;
      base = path.basename(source);
    }
    out.push({ fileId: f.id, storedPath: f.path, source, start, size, name: uniqueName(base, used), records: f.records });
  }
  return out;
}

function missing(stored: string, file: string): TroveError {
  return new TroveError('EXPORT_WARC_MISSING', `WARC file ${file} is indexed in the archive but missing on disk`, { path: stored, file });
}

/** `x.warc.gz`, then `x-1.warc.gz`, `x-2.warc.gz` … for a name already taken. */
export function uniqueName(name: string, used: Set<string>): string {
  let safe = name.replace(/[\\/\0]/g, '_');
  if (safe === '' || safe === '.' || safe === '..') safe = 'warc';
  const ext = /(\.(w?arc)(\.gz)?|\.gz)$/i.exec(safe)?.[0] ?? '';
  const stem = ext ? safe.slice(0, -ext.length) : safe;
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? safe : `${stem}-${n}${ext}`;
    if (!used.has(candidate)) {
      used.add(candidate);
      return candidate;
    }
  }
}

/** Total bytes of the WARCs. */
export function totalWarcBytes(warcs: readonly ExportWarc[]): number {
  return warcs.reduce((s, w) => s + w.size, 0);
}
