/**
 * `trove check` on a WACZ, first layer: the ZIP container itself, read header by header.
 *
 * yauzl (like most readers) trusts the central directory and reads a local header only for the
 * length of its name and extra field; other readers (ReplayWeb.page's, which takes the data offset
 * from the central directory's extra length) trust the other copy. A package whose two copies
 * disagree therefore reads differently in different tools, so every field both headers carry is
 * compared here: name bytes, extra field length (where it matters, see below), compression method, flags, CRC-32 and sizes
 * (Zip64 ones included), or, for a streamed entry (general purpose bit 3), the data descriptor
 * after its data as APPNOTE 4.3.9 describes it. Also: duplicate names, unsafe names, entries that
 * overlap (a zip-bomb trick) or run past the end of the file, and unsupported methods. The
 * entries' bytes (and their CRC-32) are checked later, through wacz-read.ts's bounded reader.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import yauzl from 'yauzl';
import { unsafeEntryName } from './wacz-read.ts';

export interface ZipProblem {
  /** The entry's name, or null for the container as a whole. */
  entry: string | null;
  /** Byte offset in the .wacz (the entry's local header). */
  offset: number;
  level: 'error' | 'warning';
  code: string;
  message: string;
}

const ZIP32_MAX = 0xffffffff;
const ZIP64_FIELD = 0x0001;
const DESCRIPTOR_SIGNATURE = 0x08074b50;

interface Span {
  name: string;
  start: number;
  end: number;
}

/** Check the ZIP structure of `file`; never throws for a broken file. */
export async function checkZipStructure(file: string): Promise<{ problems: ZipProblem[]; fatal: boolean }> {
  const abs = path.resolve(file);
  const problems: ZipProblem[] = [];
  const add = (entry: string | null, offset: number, code: string, message: string, level: 'error' | 'warning' = 'error') =>
    problems.push({ entry, offset, level, code, message });
  // A file that cannot be opened at all (missing, a folder, no permission) is WACZ_OPEN_FAILED;
  // one that opens but is no ZIP is WACZ_NOT_ZIP (an invalid package, like an empty WARC).
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(abs, 'r');
    if (!(await fh.stat()).isFile()) {
      await fh.close();
      throw Object.assign(new Error(`${abs} is not a file`), { code: 'EISDIR' });
    }
  } catch (err) {
    add(null, 0, 'WACZ_OPEN_FAILED', `cannot open ${abs}: ${(err as Error).message}`);
    return { problems, fatal: true };
  }
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(abs, { decodeStrings: false, autoClose: false, validateEntrySizes: true });
  } catch (err) {
    await fh.close();
    add(null, 0, 'WACZ_NOT_ZIP', `not a readable ZIP file: ${(err as Error).message}`);
    return { problems, fatal: true };
  }
  try {
    const seen = new Set<string>();
    const spans: Span[] = [];
    try {
      for await (const e of zip.eachEntry()) {
        const name = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields, false);
        const at = e.relativeOffsetOfLocalHeader;
        const unsafe = unsafeEntryName(name);
        if (unsafe) add(name, at, 'WACZ_UNSAFE_PATH', `unsafe entry name ${JSON.stringify(name)} (${unsafe})`);
        if (seen.has(name)) add(name, at, 'WACZ_ZIP_DUPLICATE_ENTRY', `${name} appears more than once in the central directory`);
        seen.add(name);
        if (e.isEncrypted()) add(name, at, 'WACZ_ENTRY_UNSUPPORTED', `${name} is encrypted`);
        else if (e.compressionMethod !== 0 && e.compressionMethod !== 8) add(name, at, 'WACZ_ENTRY_UNSUPPORTED', `${name} uses compression method ${e.compressionMethod}`);
        if (at + 30 + e.compressedSize > zip.fileSize) {
          add(name, at, 'WACZ_ENTRY_TRUNCATED', `${name} claims ${e.compressedSize} bytes of data from offset ${at}, past the end of the ${zip.fileSize}-byte file`);
          continue;
        }
        const local = await zip.readLocalFileHeaderPromise(e).catch((err: Error) => {
          add(name, at, 'WACZ_ZIP_BAD_LOCAL_HEADER', `${name}: no valid local header at ${at}: ${err.message}`);
          return null;
        });
        if (!local) continue;
        const dataEnd = local.fileDataStart + e.compressedSize;
        if (dataEnd > zip.fileSize) {
          add(name, at, 'WACZ_ENTRY_TRUNCATED', `${name}: its data ends at ${dataEnd}, past the end of the ${zip.fileSize}-byte file`);
          continue;
        }
        const end = await compareHeaders(fh, name, at, e, local, dataEnd, add);
        spans.push({ name, start: at, end });
      }
    } catch (err) {
      add(null, 0, 'WACZ_OPEN_FAILED', `the central directory cannot be read: ${(err as Error).message}`);
      return { problems, fatal: true };
    }
    spans.sort((a, b) => a.start - b.start);
    for (let i = 1; i < spans.length; i++) {
      const prev = spans[i - 1]!;
      const cur = spans[i]!;
      if (cur.start < prev.end) add(cur.name, cur.start, 'WACZ_ZIP_OVERLAP', `${cur.name} starts at ${cur.start}, inside ${prev.name} (which ends at ${prev.end})`);
    }
    return { problems, fatal: false };
  } finally {
    await fh.close();
    zip.close();
  }
}

type Add = (entry: string, offset: number, code: string, message: string, level?: 'error' | 'warning') => void;

/** Compare one entry's local header (and data descriptor) with its central record; returns where the entry ends. */
async function compareHeaders(
  fh: fsp.FileHandle,
  name: string,
  at: number,
  e: yauzl.Entry,
  local: yauzl.LocalFileHeader,
  dataEnd: number,
  add: Add,
): Promise<number> {
  if (!local.fileName.equals(e.fileNameRaw)) {
    add(name, at, 'WACZ_ZIP_NAME_MISMATCH', `${name}: the local header names it ${JSON.stringify(local.fileName.toString('utf8'))}`);
  }
  // APPNOTE lets the two extra fields differ (Info-ZIP and yazl write more in one than in the
  // other), and readers that read the local header cope. ReplayWeb.page (wabac.js
  // ziprangereader.ts) reads it only when the central extra length is non-zero; at zero it
  // takes the data to start right after the name, so a local extra field there shifts every read.
  const centralExtra = (e as yauzl.Entry & { extraFieldRaw?: Buffer }).extraFieldRaw?.length ?? e.extraFieldLength;
  if (centralExtra === 0 && local.extraFieldLength !== 0) {
    add(
      name,
      at,
      'WACZ_ZIP_EXTRA_MISMATCH',
      `${name}: extra field is ${local.extraFieldLength} bytes in the local header, ${centralExtra} in the central directory; readers that take the data offset from the central directory (ReplayWeb.page) start ${local.extraFieldLength} bytes early`,
    );
  }
  if (local.compressionMethod !== e.compressionMethod) {
    add(name, at, 'WACZ_ZIP_HEADER_MISMATCH', `${name}: compression method ${local.compressionMethod} in the local header, ${e.compressionMethod} in the central directory`);
  }
  if ((local.generalPurposeBitFlag & 0x0809) !== (e.generalPurposeBitFlag & 0x0809)) {
    add(name, at, 'WACZ_ZIP_HEADER_MISMATCH', `${name}: flags 0x${local.generalPurposeBitFlag.toString(16)} in the local header, 0x${e.generalPurposeBitFlag.toString(16)} in the central directory`);
  }
  const zip64 = zip64Sizes(local.extraField);
  const localSize = local.uncompressedSize === ZIP32_MAX && zip64 ? zip64.size : local.uncompressedSize;
  const localCompressed = local.compressedSize === ZIP32_MAX && zip64 ? zip64.compressed : local.compressedSize;
  if ((local.generalPurposeBitFlag & 0x0008) === 0) {
    if (local.crc32 !== e.crc32 || localSize !== e.uncompressedSize || localCompressed !== e.compressedSize) {
      add(
        name,
        at,
        'WACZ_ZIP_HEADER_MISMATCH',
        `${name}: local header says crc ${hex8(local.crc32)}, ${localCompressed} → ${localSize} bytes; central directory says crc ${hex8(e.crc32)}, ${e.compressedSize} → ${e.uncompressedSize}`,
      );
    }
    return dataEnd;
  }
  // A streamed entry: CRC and sizes follow the data (signature optional; 8-byte sizes with Zip64).
  const wide = zip64 !== null;
  const b = Buffer.alloc(wide ? 24 : 16);
  const { bytesRead } = await fh.read(b, 0, b.length, dataEnd);
  const sig = bytesRead >= 4 && b.readUInt32LE(0) === DESCRIPTOR_SIGNATURE ? 4 : 0;
  const need = sig + 4 + (wide ? 16 : 8);
  if (bytesRead < need) {
    add(name, at, 'WACZ_ZIP_BAD_DESCRIPTOR', `${name}: the data descriptor after its data is cut off`);
    return dataEnd + bytesRead;
  }
  const crc = b.readUInt32LE(sig);
  const compressed = wide ? Number(b.readBigUInt64LE(sig + 4)) : b.readUInt32LE(sig + 4);
  const size = wide ? Number(b.readBigUInt64LE(sig + 12)) : b.readUInt32LE(sig + 8);
  if (crc !== e.crc32 || compressed !== e.compressedSize || size !== e.uncompressedSize) {
    add(
      name,
      at,
      'WACZ_ZIP_BAD_DESCRIPTOR',
      `${name}: data descriptor says crc ${hex8(crc)}, ${compressed} → ${size} bytes; central directory says crc ${hex8(e.crc32)}, ${e.compressedSize} → ${e.uncompressedSize}`,
    );
  }
  return dataEnd + need;
}

/** Sizes from a Zip64 extended information field, when a local extra field has one with both. */
function zip64Sizes(extra: Buffer): { size: number; compressed: number } | null {
  for (let i = 0; i + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(i);
    const len = extra.readUInt16LE(i + 2);
    if (id === ZIP64_FIELD && len >= 16 && i + 4 + 16 <= extra.length) {
      return { size: Number(extra.readBigUInt64LE(i + 4)), compressed: Number(extra.readBigUInt64LE(i + 12)) };
    }
    i += 4 + len;
  }
  return null;
}

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');
