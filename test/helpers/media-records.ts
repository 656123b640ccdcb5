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

/** The whole 200 response record of `url` (not cut), or undefined. */
export function wholeRecord(records: ReadRecord[], url: string): ReadRecord | undefined {
  return records.find((r) => r.type === 'response' && r.targetUri === url && r.status === 200 && !r.warcHeaders['WARC-Truncated']);
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
