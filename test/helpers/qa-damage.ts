/**
 * A damaged copy of a crawl directory, as an archive that lost some captures: the directory is
 * copied whole (its crawl settings, frontier and robots stay, so a patch can continue the crawl),
 * then each WARC is rewritten without the records (response, request, metadata) of the URLs
 * given — gzip members copied byte for byte, the others left out — and re-imported in place,
 * which replaces the file's index rows (core/archive/import-warc.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openArchiveFile } from '../../core/warc/read-records.ts';
import { importFiles } from '../../core/archive/import-warc.ts';

export async function damagedCopy(src: string, dest: string, drop: ReadonlySet<string>): Promise<{ dropped: number }> {
  fs.cpSync(src, dest, { recursive: true });
  let dropped = 0;
  const warcs = path.join(dest, 'warcs');
  const files = fs.readdirSync(warcs).filter((f) => /\.warc(\.gz)?$/.test(f)).map((f) => path.join(warcs, f));
  for (const file of files) {
    // A record's length (its whole gzip member) is known once the reader has moved past it.
    const kept: { offset: number; length: number }[] = [];
    for await (const r of openArchiveFile(file)) {
      const uri = r.get('WARC-Target-URI');
      if (uri && drop.has(uri)) dropped++;
      else kept.push(r);
    }
    const bytes = fs.readFileSync(file);
    const out = Buffer.concat(kept.map((r) => bytes.subarray(r.offset, r.offset + r.length)));
    fs.writeFileSync(file + '.tmp', out);
    fs.renameSync(file + '.tmp', file);
  }
  const report = await importFiles(dest, files);
  if (report.problems.length > 0) throw new Error(`re-import failed: ${JSON.stringify(report.problems)}`);
  return { dropped };
}
