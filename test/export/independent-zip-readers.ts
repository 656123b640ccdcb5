/**
 * Every ZIP/WACZ the export tests write is read back by readers that share no code with Trove's
 * writer, each with its own idea of which header to trust:
 * - yauzl (npm) with `strictFileNames` and `validateEntrySizes`: central directory first, every
 *   entry decompressed, its CRC-32 recomputed here, and its local header compared field by field
 *   with its central record (version needed, flags, method, time, CRC, sizes, ZIP64 extra).
 * - ReplayWeb.page's rule (wabac.js ziprangereader): where a central record has no extra field,
 *   the data is taken to start at offset + 30 + name length, without reading the local header.
 * - Python's zipfile (Debian python3): `python3 -m zipfile -t`, and a snippet that reads every
 *   entry and checks its CRC-32 and size against the central directory.
 * - Info-ZIP `unzip -t` (Debian `unzip`).
 * A missing python3 or unzip fails the test: the check is the point (CI installs them).
 */
import { spawnSync } from 'node:child_process';
import zlib from 'node:zlib';
import yauzl from 'yauzl';

/** Entries of a ZIP read with yauzl: name, method, sizes, data start, bytes. */
export interface ZipEntryRead {
  name: string;
  compressionMethod: number;
  compressedSize: number;
  size: number;
  dataOffset: number;
  data: Buffer;
  generalPurposeBitFlag: number;
  /** CRC-32 from the central directory. */
  crc32: number;
}

const U32_MAX = 0xffffffff;

/** The sizes a local header states, its ZIP64 extra field read where the 32-bit fields say so. */
function localSizes(h: yauzl.LocalFileHeader): { size: number; compressedSize: number } {
  let size = h.uncompressedSize;
  let compressedSize = h.compressedSize;
  if (size !== U32_MAX && compressedSize !== U32_MAX) return { size, compressedSize };
  for (let at = 0; at + 4 <= h.extraField.length; ) {
    const id = h.extraField.readUInt16LE(at);
    const len = h.extraField.readUInt16LE(at + 2);
    if (id === 0x0001) {
      // APPNOTE §4.5.3: a local header's ZIP64 field holds both sizes.
      if (len < 16) throw new Error(`${h.fileName}: local ZIP64 extra field of ${len} bytes, both sizes required`);
      size = Number(h.extraField.readBigUInt64LE(at + 4));
      compressedSize = Number(h.extraField.readBigUInt64LE(at + 12));
    }
    at += 4 + len;
  }
  return { size, compressedSize };
}

/**
 * Compare an entry's local header with its central record, field by field (version needed, flags,
 * method, time, date, name, CRC-32 and sizes with ZIP64 read where flagged), and apply
 * ReplayWeb.page's rule: no central extra field means the data starts right after the name.
 */
async function checkLocalHeader(zip: yauzl.ZipFile, e: yauzl.Entry, file: string): Promise<yauzl.LocalFileHeader> {
  const local = await zip.readLocalFileHeaderPromise(e);
  const where = `${file}: ${e.fileName}`;
  const agree = (what: string, l: number, c: number) => {
    if (l !== c) throw new Error(`${where}: local header ${what} ${l} ≠ central ${c}`);
  };
  agree('version needed', local.versionNeededToExtract, e.versionNeededToExtract);
  agree('flags', local.generalPurposeBitFlag, e.generalPurposeBitFlag);
  agree('method', local.compressionMethod, e.compressionMethod);
  agree('time', local.lastModFileTime, e.lastModFileTime);
  agree('date', local.lastModFileDate, e.lastModFileDate);
  if (local.fileName.toString('utf8') !== e.fileName) throw new Error(`${where}: local name ${local.fileName.toString('utf8')}`);
  if ((e.generalPurposeBitFlag & 8) === 0) {
    agree('CRC-32', local.crc32, e.crc32);
    const l = localSizes(local);
    agree('size', l.size, e.uncompressedSize);
    agree('compressed size', l.compressedSize, e.compressedSize);
  }
  if (e.extraFieldLength === 0) agree('data start (as ReplayWeb.page computes it)', local.fileDataStart, e.relativeOffsetOfLocalHeader + 30 + e.fileNameLength);
  return local;
}

/** Headers only (no data read): for archives too large to hold in memory. Returns the entry count. */
export async function checkZipHeaders(file: string): Promise<number> {
  const zip = await yauzl.openPromise(file, { autoClose: false, validateEntrySizes: true, strictFileNames: true });
  let n = 0;
  try {
    for await (const e of zip.eachEntry()) {
      await checkLocalHeader(zip, e, file);
      n++;
    }
  } finally {
    zip.close();
  }
  return n;
}

/**
 * Read every entry with yauzl in strict mode, checking CRC-32s and that each local header agrees
 * with its central record. Throws with the entry name on the first disagreement. `checkDataCrc:
 * false` reads a package damaged on purpose.
 */
export async function readZip(file: string, opts: { checkDataCrc?: boolean } = {}): Promise<ZipEntryRead[]> {
  const zip = await yauzl.openPromise(file, { autoClose: false, validateEntrySizes: true, strictFileNames: true });
  const out: ZipEntryRead[] = [];
  try {
    for await (const e of zip.eachEntry()) {
      const local = await checkLocalHeader(zip, e, file);
      const where = `${file}: ${e.fileName}`;
      const parts: Buffer[] = [];
      for await (const c of await zip.openReadStreamPromise(e)) parts.push(c as Buffer);
      const data = Buffer.concat(parts);
      if (opts.checkDataCrc !== false && zlib.crc32(data) !== e.crc32) throw new Error(`${where}: CRC-32 of the data ${zlib.crc32(data)} ≠ recorded ${e.crc32}`);
      out.push({
        name: e.fileName,
        compressionMethod: e.compressionMethod,
        compressedSize: e.compressedSize,
        size: e.uncompressedSize,
        dataOffset: local.fileDataStart,
        data,
        generalPurposeBitFlag: e.generalPurposeBitFlag,
        crc32: e.crc32,
      });
    }
  } finally {
    zip.close();
  }
  return out;
}

const PY_READ_ALL = `
import sys, zipfile, zlib
n = 0
with zipfile.ZipFile(sys.argv[1]) as z:
    for info in z.infolist():
        data = z.read(info)
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            sys.exit("mismatch in " + info.filename)
        n += 1
print(n)
`;

function run(cmd: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`${cmd} is needed to check ZIP files (${r.error.message}); install it (Debian: apt-get install ${cmd === 'unzip' ? 'unzip' : 'python3'})`);
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Python's zipfile (`-m zipfile -t`, then every entry read and CRC-checked) and Info-ZIP `unzip -t`; returns the entry count. */
export function checkWithPythonAndUnzip(file: string): number {
  const t = run('python3', ['-m', 'zipfile', '-t', file]);
  if (t.status !== 0 || !t.out.includes('Done testing')) throw new Error(`python3 -m zipfile -t ${file}:\n${t.out}`);
  const r = run('python3', ['-c', PY_READ_ALL, file]);
  if (r.status !== 0) throw new Error(`python3 zipfile read of ${file}:\n${r.out}`);
  const u = run('unzip', ['-t', file]);
  if (u.status !== 0 || !u.out.includes('No errors detected')) throw new Error(`unzip -t ${file}:\n${u.out}`);
  return Number(r.out.trim());
}

/** All independent readers; returns the entries as yauzl read them. */
export async function readZipEverywhere(file: string): Promise<ZipEntryRead[]> {
  const entries = await readZip(file);
  const n = checkWithPythonAndUnzip(file);
  if (n !== entries.length) throw new Error(`${file}: Python's zipfile sees ${n} entries, yauzl ${entries.length}`);
  return entries;
}
