/**
 * Seeded mutation of the test corpus, for fuzzing the WARC, CDXJ and WACZ readers. Everything is
 * derived from one 32-bit seed per case, so a failure is reproduced by its case seed alone:
 * `node bench/fuzz.ts 1 <case seed> [warc|cdxj]` replays exactly that case.
 *
 * Byte-level mutations (bit flips, insertions, deletions, truncation, chunk duplication) find
 * framing bugs; for gzip files most of them only break a CRC, so gzip members are also shuffled,
 * dropped and duplicated whole, and a member's *content* is mutated and recompressed, which
 * reaches the record parser behind the gzip layer. Content-Length values are rewritten too
 * (huge, negative, not a number): that is where a reader trusts its input most. WACZ packages
 * get their ZIP header fields (sizes, offsets, CRCs, name and extra lengths, methods) rewritten.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { corpusPath, expectedEntries } from '../helpers/corpus.ts';

export { prng, type Rng } from '../helpers/seeded-random.ts';
import type { Rng } from '../helpers/seeded-random.ts';

/** Case i of a campaign started with `seed`; case 0's seed is the campaign seed itself. */
export function caseSeed(seed: number, i: number): number {
  return (seed + Math.imul(i, 0x9e3779b9)) >>> 0;
}

export function int(rnd: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rnd() * (hi - lo + 1));
}

function pick<T>(rnd: Rng, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)]!;
}

export interface CorpusFile {
  /** Path relative to the corpus. */
  name: string;
  bytes: Buffer;
  /** Offsets of the gzip members (null when not gzip). */
  members: number[] | null;
}

interface ExpectedEntry {
  file: string;
  gzip: { members: number; member_offsets: number[] } | null;
}

/** Every WARC/ARC file of the corpus, with its gzip member layout from EXPECTED.json. */
export function loadWarcCorpus(): CorpusFile[] {
  const expected = expectedEntries<ExpectedEntry>();
  return expected.map((e) => ({
    name: e.file,
    bytes: fs.readFileSync(corpusPath(e.file)),
    members: e.gzip && e.gzip.member_offsets.length > 0 ? e.gzip.member_offsets : null,
  }));
}

export interface Mutated {
  bytes: Buffer;
  /** What was done, in order, for the failure report. */
  applied: string[];
}

type Mutator = (b: Buffer, rnd: Rng) => [Buffer, string];

const bitFlip: Mutator = (b, rnd) => {
  if (b.length === 0) return [b, 'bitflip(empty)'];
  const out = Buffer.from(b);
  const n = int(rnd, 1, 8);
  const at: number[] = [];
  for (let k = 0; k < n; k++) {
    const i = int(rnd, 0, out.length - 1);
    out[i]! ^= 1 << int(rnd, 0, 7);
    at.push(i);
  }
  return [out, `bitflip@${at.join(',')}`];
};

const insertBytes: Mutator = (b, rnd) => {
  const i = int(rnd, 0, b.length);
  // Random bytes, or bytes that matter to the parsers.
  const interesting = ['\r\n', '\r\n\r\n', '\n', ':', ' ', 'WARC/1.1\r\n', '\x1f\x8b\x08', '0\r\n\r\n', '{', '"', '\u00ff', '\0'];
  const ins = rnd() < 0.5 ? Buffer.from(Array.from({ length: int(rnd, 1, 16) }, () => int(rnd, 0, 255))) : Buffer.from(pick(rnd, interesting), 'latin1');
  return [Buffer.concat([b.subarray(0, i), ins, b.subarray(i)]), `insert@${i}+${ins.length}`];
};

const deleteBytes: Mutator = (b, rnd) => {
  if (b.length === 0) return [b, 'delete(empty)'];
  const i = int(rnd, 0, b.length - 1);
  const n = Math.min(b.length - i, int(rnd, 1, 64));
  return [Buffer.concat([b.subarray(0, i), b.subarray(i + n)]), `delete@${i}-${n}`];
};

const truncate: Mutator = (b, rnd) => {
  const n = int(rnd, 0, Math.max(0, b.length - 1));
  return [b.subarray(0, n), `truncate@${n}`];
};

const duplicateChunk: Mutator = (b, rnd) => {
  if (b.length === 0) return [b, 'dup(empty)'];
  const from = int(rnd, 0, b.length - 1);
  const len = Math.min(b.length - from, int(rnd, 1, 512));
  const to = int(rnd, 0, b.length);
  return [Buffer.concat([b.subarray(0, to), b.subarray(from, from + len), b.subarray(to)]), `dup[${from}+${len}]@${to}`];
};

/** Rewrite one `Content-Length:` value (or a CDXJ "length"/"offset") to something hostile. */
const lengthField: Mutator = (b, rnd) => {
  const text = b.toString('latin1');
  const re = /(Content-Length:[ \t]*|"(?:length|offset)":")(\d+)/gi;
  const hits = [...text.matchAll(re)];
  if (hits.length === 0) return bitFlip(b, rnd);
  const m = pick(rnd, hits);
  const old = Number(m[2]);
  const value = pick(rnd, [
    String(old + int(rnd, 1, 10)),
    String(Math.max(0, old - int(rnd, 1, 10))),
    '0',
    '-1',
    '99999999999999999999',
    String(2 ** 53),
    'NaN',
    '',
    `${old} ${old}`,
    String(old * 1000),
  ]);
  const start = m.index! + m[1]!.length;
  const out = Buffer.concat([b.subarray(0, start), Buffer.from(value, 'latin1'), b.subarray(start + m[2]!.length)]);
  return [out, `length@${start}:${m[2]}->${JSON.stringify(value)}`];
};

const BYTE_MUTATORS: Mutator[] = [bitFlip, insertBytes, deleteBytes, truncate, duplicateChunk, lengthField];
/** Mutators for data behind a gzip layer (truncation there would mostly say the same as above). */
const CONTENT_MUTATORS: Mutator[] = [bitFlip, insertBytes, deleteBytes, duplicateChunk, lengthField, lengthField];

function splitMembers(b: Buffer, offsets: number[]): Buffer[] {
  return offsets.map((o, i) => b.subarray(o, i + 1 < offsets.length ? offsets[i + 1] : b.length));
}

function gzipMutation(f: CorpusFile, b: Buffer, rnd: Rng): [Buffer, string] {
  const members = splitMembers(b, f.members!);
  const kind = int(rnd, 0, 4);
  if (members.length > 1 && kind === 0) {
    const i = int(rnd, 0, members.length - 1);
    const j = int(rnd, 0, members.length - 1);
    [members[i], members[j]] = [members[j]!, members[i]!];
    return [Buffer.concat(members), `swap-members ${i}<->${j}`];
  }
  if (members.length > 1 && kind === 1) {
    const i = int(rnd, 0, members.length - 1);
    members.splice(i, 1);
    return [Buffer.concat(members), `drop-member ${i}`];
  }
  if (kind === 2) {
    const i = int(rnd, 0, members.length - 1);
    members.splice(int(rnd, 0, members.length), 0, members[i]!);
    return [Buffer.concat(members), `dup-member ${i}`];
  }
  // Mutate what a member holds, and compress it again: reaches the record parser.
  const i = int(rnd, 0, members.length - 1);
  let plain: Buffer;
  try {
    plain = zlib.gunzipSync(members[i]!);
  } catch {
    return bitFlip(b, rnd);
  }
  const [changed, what] = pick(rnd, CONTENT_MUTATORS)(plain, rnd);
  members[i] = zlib.gzipSync(changed);
  return [Buffer.concat(members), `member ${i} content: ${what}`];
}

/** 1 to 3 mutations of one corpus file. Gzip files get member-level mutations half the time. */
export function mutateWarc(f: CorpusFile, rnd: Rng): Mutated {
  let bytes = f.bytes;
  const applied: string[] = [];
  const rounds = int(rnd, 1, 3);
  for (let r = 0; r < rounds; r++) {
    // Member offsets hold only until the first byte-level change.
    const [next, what] = f.members && applied.length === 0 && rnd() < 0.6 ? gzipMutation(f, bytes, rnd) : pick(rnd, BYTE_MUTATORS)(bytes, rnd);
    bytes = next;
    applied.push(what);
  }
  return { bytes, applied };
}

/** Line-level mutations for CDXJ text, plus the byte-level ones. */
const LINE_MUTATORS: Mutator[] = [
  (b, rnd) => {
    const lines = b.toString('latin1').split('\n');
    const i = int(rnd, 0, lines.length - 1);
    const j = int(rnd, 0, lines.length - 1);
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
    return [Buffer.from(lines.join('\n'), 'latin1'), `swap-lines ${i}<->${j}`];
  },
  (b, rnd) => {
    const lines = b.toString('latin1').split('\n');
    const i = int(rnd, 0, lines.length - 1);
    const l = lines[i]!;
    lines[i] = l.slice(0, int(rnd, 0, l.length));
    return [Buffer.from(lines.join('\n'), 'latin1'), `cut-line ${i}`];
  },
  (b, rnd) => {
    const lines = b.toString('latin1').split('\n');
    const i = int(rnd, 0, lines.length);
    const junk = pick(rnd, ['', '#', '!meta 0 {}', 'x', ' CDX N b a m s k r M S V g', 'a 2024 {}', 'a 20240101 {"url":1}', 'a 20240101 {"url":"u"', 'a 20240101 []', 'a 1 {"url":"u"}', '\r', '\u0000\u0000']);
    lines.splice(i, 0, junk);
    return [Buffer.from(lines.join('\n'), 'latin1'), `insert-line ${i} ${JSON.stringify(junk)}`];
  },
];

export function mutateText(b: Buffer, rnd: Rng): Mutated {
  let bytes = b;
  const applied: string[] = [];
  const rounds = int(rnd, 1, 3);
  for (let r = 0; r < rounds; r++) {
    const [next, what] = pick(rnd, rnd() < 0.4 ? LINE_MUTATORS : BYTE_MUTATORS)(bytes, rnd);
    bytes = next;
    applied.push(what);
  }
  return { bytes, applied };
}

/** The corpus WACZ packages (valid, invalid, signed, badly signed). */
export function loadWaczCorpus(): CorpusFile[] {
  return ['valid_example_1.wacz', 'invalid_example_1.wacz', 'valid_signed_example_1.wacz', 'invalid_signed_example_1.wacz'].map((name) => ({
    name: `wacz/${name}`,
    bytes: fs.readFileSync(corpusPath('wacz', name)),
    members: null,
  }));
}

/** ZIP header fields worth lying in: [signature, field offset, width, name]. */
const ZIP_FIELDS: [number, number, 2 | 4, string][] = [
  [0x04034b50, 6, 2, 'local.flags'],
  [0x04034b50, 8, 2, 'local.method'],
  [0x04034b50, 14, 4, 'local.crc'],
  [0x04034b50, 18, 4, 'local.csize'],
  [0x04034b50, 22, 4, 'local.usize'],
  [0x04034b50, 26, 2, 'local.nameLen'],
  [0x04034b50, 28, 2, 'local.extraLen'],
  [0x02014b50, 8, 2, 'central.flags'],
  [0x02014b50, 10, 2, 'central.method'],
  [0x02014b50, 16, 4, 'central.crc'],
  [0x02014b50, 20, 4, 'central.csize'],
  [0x02014b50, 24, 4, 'central.usize'],
  [0x02014b50, 28, 2, 'central.nameLen'],
  [0x02014b50, 30, 2, 'central.extraLen'],
  [0x02014b50, 38, 4, 'central.attrs'],
  [0x02014b50, 42, 4, 'central.offset'],
  [0x06054b50, 8, 2, 'eocd.entries'],
  [0x06054b50, 10, 2, 'eocd.total'],
  [0x06054b50, 12, 4, 'eocd.cdSize'],
  [0x06054b50, 16, 4, 'eocd.cdOffset'],
];

/** Rewrite one size, offset, CRC, length or method field of a ZIP header to a hostile value. */
const zipField: Mutator = (b, rnd) => {
  const [sig, at, width, name] = pick(rnd, ZIP_FIELDS);
  const hits: number[] = [];
  const magic = Buffer.alloc(4);
  magic.writeUInt32LE(sig);
  for (let i = b.indexOf(magic); i >= 0; i = b.indexOf(magic, i + 1)) if (i + at + width <= b.length) hits.push(i);
  if (hits.length === 0) return bitFlip(b, rnd);
  const base = pick(rnd, hits);
  const max = width === 2 ? 0xffff : 0xffffffff;
  const old = width === 2 ? b.readUInt16LE(base + at) : b.readUInt32LE(base + at);
  const value = pick(rnd, [0, 1, max, max - 1, old + 1, Math.max(0, old - 1), Math.min(max, old * 1000), int(rnd, 0, max), 8, 99]);
  const out = Buffer.from(b);
  if (width === 2) out.writeUInt16LE(value & 0xffff, base + at);
  else out.writeUInt32LE(value >>> 0, base + at);
  return [out, `${name}@${base}:${old}->${value}`];
};

/** 1 to 3 mutations of a WACZ: header fields most of the time (that is where readers trust), bytes otherwise. */
export function mutateWacz(f: CorpusFile, rnd: Rng): Mutated {
  let bytes = f.bytes;
  const applied: string[] = [];
  const rounds = int(rnd, 1, 3);
  for (let r = 0; r < rounds; r++) {
    const [next, what] = (rnd() < 0.6 ? zipField : pick(rnd, BYTE_MUTATORS))(bytes, rnd);
    bytes = next;
    applied.push(what);
  }
  return { bytes, applied };
}

export { pick };
