/**
 * What issue 37's tests check in an archive of the media site (media-site-server.ts), read with
 * warcio: a whole 200 record per media file whose payload is the file and whose payload digest
 * is the file's, and, for a stream, which of each manifest's renditions are in the archive whole.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { sha1OfParts } from '../../core/formats/digest.ts';
import { parseStreamManifest, type StreamKind } from '../../core/formats/media-manifest.ts';
import type { MediaFixtures } from './media-fixtures.ts';
import type { ReadRecord } from './read-warcs.ts';

const whole = (r: ReadRecord | undefined): boolean => r?.type === 'response' && r.status === 200 && !r.warcHeaders['WARC-Truncated'];

/**
 * The whole 200 response record of `url` (not cut), or undefined. A 200 revisit of `url` counts
 * when the record it refers to is a whole 200 (the same bytes fetched by another page): the
 * original's record is returned, its payload being the one replay serves.
 */
export function wholeRecord(records: ReadRecord[], url: string): ReadRecord | undefined {
  const own = records.find((r) => r.targetUri === url && whole(r));
  if (own) return own;
  for (const r of records) {
    if (r.type !== 'revisit' || r.targetUri !== url || r.status !== 200) continue;
    const original = records.find((o) => o.recordId === r.warcHeaders['WARC-Refers-To']);
    if (whole(original)) return original;
  }
  return undefined;
}

/** A whole 200 record of the fixture file `rel` (served as /media/<rel>), byte for byte. */
export function expectWholeFile(records: ReadRecord[], origin: string, fx: MediaFixtures, rel: string): void {
  const file = fs.readFileSync(path.join(fx.dir, rel));
  const r = wholeRecord(records, `${origin}/media/${rel}`);
  expect(r, `a whole 200 record of ${rel}`).toBeDefined();
  expect(r!.payload.length, rel).toBe(file.length);
  expect(r!.payload.equals(file), rel).toBe(true);
  expect(r!.warcHeaders['WARC-Payload-Digest'], rel).toBe(sha1OfParts([file]));
}

/** Each rendition of the fixture manifest `rel`: its id, and whether every URL of it is archived whole. */
export function renditionsArchived(records: ReadRecord[], origin: string, fx: MediaFixtures, kind: StreamKind, rel: string): { id: string; urls: number; archived: number }[] {
  const url = `${origin}/media/${rel}`;
  const m = parseStreamManifest(kind, fs.readFileSync(path.join(fx.dir, rel), 'utf8'), url);
  return m.renditions.map((r) => ({ id: r.id, urls: r.urls.length, archived: r.urls.filter((u) => wholeRecord(records, u)).length }));
}
