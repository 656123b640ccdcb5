/**
 * The payloads a recrawl's WACZ needs from the earlier crawls of its chain. A recrawl's revisits
 * point at responses held by the crawls it repeats (Archive.earlier); a package of the recrawl
 * alone would leave them unresolved in ReplayWeb.page and pywb. So, by default, the export is
 * self-contained: each such original response is copied byte for byte (its gzip member) into one
 * more WARC, `earlier-payloads.warc.gz`, indexed at its own URL and time, where the replay tools
 * find it by the revisit's WARC-Refers-To-Target-URI and WARC-Refers-To-Date. docs/FORMATS.md
 * says why this and not WACZ 1.2's draft `relation.requires`.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Archive } from '../archive/archive-dir.ts';
import { resolveRevisitInChain } from '../archive/archive-revisit.ts';
import type { CaptureRow } from '../archive/capture-index.ts';
import { formatCdxj } from '../archive/cdxj.ts';
import { cdxjEntry } from './capture-cdxj.ts';
import { recordChunks } from './record-bytes.ts';

export const EARLIER_PAYLOADS_WARC = 'earlier-payloads.warc.gz';

export interface EarlierPayloads {
  /** The WARC of copied records (a temporary file the caller packs and removes). */
  file: string;
  size: number;
  records: number;
  /** Unsorted CDXJ lines of the copied records, relative to EARLIER_PAYLOADS_WARC. */
  cdxj: string[];
}

const PAGE = 2000;

/** The originals outside this archive that its revisits resolve to, each once. */
function originalsInEarlierCrawls(archive: Archive): CaptureRow[] {
  const found = new Map<string, CaptureRow>();
  for (let after = 0; ; ) {
    const rows = archive.index.cdxjRows(after, PAGE);
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;
    for (const r of rows) {
      if (r.recordType !== 'revisit') continue;
      const row = archive.index.byId(r.id);
      const original = row ? resolveRevisitInChain(archive, row) : null;
      if (original && original.id < 0) found.set(`${original.filePath}\n${original.offset}`, original);
    }
  }
  return [...found.values()];
}

/** Write the WARC of earlier payloads to `file`; null when the archive needs none (not a recrawl). */
export async function writeEarlierPayloads(archive: Archive, file: string): Promise<EarlierPayloads | null> {
  if (archive.earlier().length === 0) return null;
  const originals = originalsInEarlierCrawls(archive);
  if (originals.length === 0) return null;
  const out = await fsp.open(file, 'w');
  const cdxj: string[] = [];
  let size = 0;
  try {
    for (const o of originals) {
      const start = size;
      for await (const chunk of recordChunks(o.filePath, o.offset, o.length, true)) {
        await out.write(chunk);
        size += chunk.length;
      }
      const e = cdxjEntry({ ...o, offset: start, length: size - start }, { start: 0, name: EARLIER_PAYLOADS_WARC });
      if (e) cdxj.push(formatCdxj(e));
    }
  } catch (err) {
    await out.close();
    fs.rmSync(file, { force: true });
    throw err;
  }
  await out.close();
  return { file, size, records: originals.length, cdxj };
}
