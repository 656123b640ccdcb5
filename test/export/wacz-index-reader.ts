/**
 * A test-side reader for a WACZ's index, written from the format as the corpus packages show
 * it (py-wacz 0.4 ZipNum: `!meta` line, one JSON line per gzip block), not from Trove's writer:
 * returns every CDXJ line of `indexes/index.cdxj` or of `indexes/index.cdx.gz` read block by
 * block through `indexes/index.idx`, checking each block's length and digest.
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { ZipEntryRead } from './independent-zip-readers.ts';

export interface IdxBlock {
  key: string;
  offset: number;
  length: number;
  digest?: string;
}

export function readWaczIndexLines(entries: ZipEntryRead[]): { kind: 'cdxj' | 'zipnum'; lines: string[]; blocks: IdxBlock[] } {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const plain = byName.get('indexes/index.cdxj');
  if (plain) return { kind: 'cdxj', lines: splitLines(plain.data.toString('utf8')), blocks: [] };
  const idx = byName.get('indexes/index.idx');
  const gz = byName.get('indexes/index.cdx.gz');
  if (!idx || !gz) throw new Error('no index in package');
  const idxLines = splitLines(idx.data.toString('utf8'));
  const meta = idxLines[0]!;
  if (!meta.startsWith('!meta 0 ')) throw new Error(`idx does not start with !meta: ${meta}`);
  const metaJson = JSON.parse(meta.slice('!meta 0 '.length)) as { format: string; filename: string };
  if (metaJson.format !== 'cdxj-gzip-1.0') throw new Error(`unknown idx format ${metaJson.format}`);
  const blocks: IdxBlock[] = [];
  const lines: string[] = [];
  for (const l of idxLines.slice(1)) {
    const m = /^(\S+ \S+) (\{.*\})$/.exec(l);
    if (!m) throw new Error(`bad idx line ${l}`);
    const j = JSON.parse(m[2]!) as { offset: number; length: number; digest?: string };
    const block = gz.data.subarray(j.offset, j.offset + j.length);
    if (block.length !== j.length) throw new Error(`block at ${j.offset} is short`);
    if (j.digest && j.digest !== `sha256:${createHash('sha256').update(block).digest('hex')}`) throw new Error(`block at ${j.offset}: digest mismatch`);
    const blockLines = splitLines(gunzipSync(block).toString('utf8'));
    if (!blockLines[0]!.startsWith(m[1]! + ' ')) throw new Error(`block at ${j.offset} does not start with its key ${m[1]}`);
    blocks.push({ key: m[1]!, offset: j.offset, length: j.length, ...(j.digest ? { digest: j.digest } : {}) });
    lines.push(...blockLines);
  }
  return { kind: 'zipnum', lines, blocks };
}

function splitLines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

/** Parse a CDXJ line: urlkey, timestamp, JSON. */
export function parseCdxjLine(line: string): { urlkey: string; ts: string; json: Record<string, string> } {
  const a = line.indexOf(' ');
  const b = line.indexOf(' ', a + 1);
  return { urlkey: line.slice(0, a), ts: line.slice(a + 1, b), json: JSON.parse(line.slice(b + 1)) as Record<string, string> };
}
