/**
 * A ZIP writer for hostile packages, by hand because real zip libraries (yazl included) refuse
 * to write what an attacker writes: `..` and absolute names, a local header whose name differs
 * from the central directory's, an Info-ZIP Unicode Path field that renames an entry, symbolic
 * link modes, sizes that lie, zip bombs, local extra fields the central directory does not repeat.
 * Nothing is validated here on purpose.
 */
import zlib from 'node:zlib';

export interface CraftedEntry {
  /** Name in the central directory (what readers like yauzl list). */
  name: string;
  data: Buffer;
  /** Name in the local file header; defaults to `name`. */
  localName?: string;
  deflate?: boolean;
  /** Unix mode (e.g. 0o120777 for a symlink); written into the external attributes. */
  mode?: number;
  /** Info-ZIP Unicode Path extra field (0x7075): the name readers should use instead of `name`. */
  unicodePath?: string;
  /** Bytes written as the entry's data as they are (already deflated), instead of `data`. */
  raw?: Buffer;
  /** Uncompressed size and CRC-32 to declare instead of `data`'s (sizes past 4 GiB get a Zip64 field). */
  declaredSize?: number;
  crc?: number;
  /** Compressed size to declare instead of the data's length. */
  declaredCompressedSize?: number;
  /** Bytes of an extra field in the local header only (what the central directory does not repeat). */
  localExtra?: Buffer;
}

const ZIP32_MAX = 0xffffffff;

/** A Zip64 extended information field (0x0001) with both sizes. */
function zip64Field(size: number, compressed: number): Buffer {
  const f = Buffer.alloc(20);
  f.writeUInt16LE(0x0001, 0);
  f.writeUInt16LE(16, 2);
  f.writeBigUInt64LE(BigInt(size), 4);
  f.writeBigUInt64LE(BigInt(compressed), 12);
  return f;
}

function unicodePathField(rawName: Buffer, unicodeName: string): Buffer {
  const name = Buffer.from(unicodeName, 'utf8');
  const field = Buffer.alloc(4 + 5 + name.length);
  field.writeUInt16LE(0x7075, 0);
  field.writeUInt16LE(5 + name.length, 2);
  field.writeUInt8(1, 4); // version
  field.writeUInt32LE(zlib.crc32(rawName), 5); // CRC-32 of the raw name it replaces
  name.copy(field, 9);
  return field;
}

export function craftZip(entries: CraftedEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = e.raw ?? (e.deflate ? zlib.deflateRawSync(e.data) : e.data);
    const crc = e.crc ?? zlib.crc32(e.data);
    const size = e.declaredSize ?? e.data.length;
    const compressed = e.declaredCompressedSize ?? data.length;
    const zip64 = size >= ZIP32_MAX || compressed >= ZIP32_MAX;
    const localName = Buffer.from(e.localName ?? e.name, 'utf8');
    const centralName = Buffer.from(e.name, 'utf8');
    const extra = Buffer.concat([
      e.unicodePath !== undefined ? unicodePathField(centralName, e.unicodePath) : Buffer.alloc(0),
      zip64 ? zip64Field(size, compressed) : Buffer.alloc(0),
    ]);
    const localExtra = Buffer.concat([zip64 ? zip64Field(size, compressed) : Buffer.alloc(0), e.localExtra ?? Buffer.alloc(0)]);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(e.deflate ? 8 : 0, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(zip64 ? ZIP32_MAX : compressed, 18);
    local.writeUInt32LE(zip64 ? ZIP32_MAX : size, 22);
    local.writeUInt16LE(localName.length, 26);
    local.writeUInt16LE(localExtra.length, 28);
    locals.push(local, localName, localExtra, data);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(e.deflate ? 8 : 0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(zip64 ? ZIP32_MAX : compressed, 20);
    central.writeUInt32LE(zip64 ? ZIP32_MAX : size, 24);
    central.writeUInt16LE(centralName.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt16LE(0, 32);
    central.writeUInt16LE(0, 34);
    central.writeUInt16LE(0, 36);
    central.writeUInt32LE((((e.mode ?? 0o100644) & 0xffff) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, centralName, extra);
    offset += local.length + localName.length + localExtra.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
