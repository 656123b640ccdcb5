/**
 * A real crawl of the fixture site (pages, CSS, images, redirects, a revisit, gzip/br/chunked
 * bodies, a second host) into a temporary archive directory, for the export tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { startFixtureSite } from '../fixtures/fixture-site.ts';
import type { FixtureSite } from '../fixtures/fixture-site.ts';

export interface CrawledArchive {
  site: FixtureSite;
  dir: string;
  /** A scratch folder for export outputs. */
  out: string;
  cleanup(): Promise<void>;
}

export async function crawlFixture(prefix: string): Promise<CrawledArchive> {
  const site = await startFixtureSite();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `trove-${prefix}-`));
  const dir = path.join(root, 'archive');
  const out = path.join(root, 'out');
  fs.mkdirSync(out);
  const crawl = await startCrawl({
    dir,
    settings: {
      name: 'fixture',
      seeds: [site.origin + '/'],
      minDelayMs: 0,
      maxDelayMs: 0,
      delayFactor: 0,
      maxRetries: 0,
      concurrency: 4,
      minFreeDiskBytes: 0,
    },
  });
  await crawl.finished();
  return {
    site,
    dir,
    out,
    async cleanup() {
      await site.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Entries of a ZIP read with yauzl (an independent reader): name, method, sizes, data start, bytes. */
export interface ZipEntryRead {
  name: string;
  compressionMethod: number;
  compressedSize: number;
  size: number;
  dataOffset: number;
  data: Buffer;
  generalPurposeBitFlag: number;
  /** CRC-32 from the central directory (yauzl does not check it). */
  crc32: number;
}

export async function readZip(file: string): Promise<ZipEntryRead[]> {
  const yauzl = (await import('yauzl')).default;
  const zip = await yauzl.openPromise(file, { autoClose: false, validateEntrySizes: true });
  const out: ZipEntryRead[] = [];
  try {
    for await (const e of zip.eachEntry()) {
      const { fileDataStart } = await zip.readLocalFileHeaderPromise(e, { minimal: true });
      const parts: Buffer[] = [];
      for await (const c of await zip.openReadStreamPromise(e)) parts.push(c as Buffer);
      out.push({
        name: e.fileName,
        compressionMethod: e.compressionMethod,
        compressedSize: e.compressedSize,
        size: e.uncompressedSize,
        dataOffset: fileDataStart,
        data: Buffer.concat(parts),
        generalPurposeBitFlag: e.generalPurposeBitFlag,
        crc32: e.crc32,
      });
    }
  } finally {
    zip.close();
  }
  return out;
}
