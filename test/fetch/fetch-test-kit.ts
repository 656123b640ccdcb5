/** Shared bits of the fetcher tests: a fetcher with small limits, and result helpers. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFetcher } from '../../core/fetch/fetcher.ts';
import type { FetchOptions, FetchResult, Fetcher } from '../../core/fetch/fetcher.ts';
import { sha1Base32 } from '../../core/formats/digest.ts';

export function tempSpoolDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'trove-fetch-test-'));
}

/**
 * A fetcher with small limits. Its timeouts are generous on purpose: a loaded machine may take
 * seconds to answer a loopback request, and a short default would turn that into a flaky
 * timeout. The tests about timeouts set their own and make the time pass (fake timers, or the
 * fetcher's injectable `timers`).
 */
export function testFetcher(spoolDir: string, over: Partial<FetchOptions> = {}): Fetcher {
  return createFetcher({
    connectTimeoutMs: 30_000,
    headersTimeoutMs: 60_000,
    idleTimeoutMs: 60_000,
    fetchTimeoutMs: 120_000,
    maxBodyBytes: 20 * 1024 * 1024,
    maxHeaderBytes: 64 * 1024,
    spoolDir,
    ...over,
  });
}

export const UA: [string, string][] = [['User-Agent', 'trove-test/0.1 (+https://example.org/bot)']];

export async function bytes(r: FetchResult, part: 'body' | 'entity'): Promise<Buffer> {
  const s = r[part];
  if (!s) throw new Error(`result has no ${part}`);
  return s.read();
}

/**
 * Recompute both digests from the result's bytes. The payload is the entity, or the body as
 * received when its chunk framing broke (the transfer coding cannot be removed; docs/FORMATS.md).
 */
export async function checkDigests(r: FetchResult): Promise<void> {
  const body = await bytes(r, 'body');
  const entity = await bytes(r, 'entity');
  const block = sha1Base32(Buffer.concat([r.responseHead ?? Buffer.alloc(0), body]));
  const payload = sha1Base32(r.error?.code === 'FETCH_BAD_CHUNKING' ? body : entity);
  if (r.blockDigest !== block) throw new Error(`block digest ${r.blockDigest} != recomputed ${block}`);
  if (r.payloadDigest !== payload) throw new Error(`payload digest ${r.payloadDigest} != recomputed ${payload}`);
}

export async function dispose(r: FetchResult): Promise<void> {
  await r.body?.dispose();
  if (r.entity !== r.body) await r.entity?.dispose();
}

export function header(r: FetchResult, name: string): string | undefined {
  return r.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}
