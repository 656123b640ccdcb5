import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DigestStream, base32, labelledDigest, sha1Base32 } from '../../core/formats/digest.ts';

describe('base32', () => {
  it('matches the RFC 4648 test vectors', () => {
    const vectors: [string, string][] = [
      ['', ''],
      ['f', 'MY======'],
      ['fo', 'MZXQ===='],
      ['foo', 'MZXW6==='],
      ['foob', 'MZXW6YQ='],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI======'],
    ];
    for (const [input, out] of vectors) expect(base32(Buffer.from(input))).toBe(out);
  });

  it('encodes all byte values without overflow', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const enc = base32(all);
    expect(enc).toMatch(/^[A-Z2-7]+=*$/);
    expect(enc.replace(/=+$/, '').length).toBe(Math.ceil((256 * 8) / 5));
  });
});

describe('sha1Base32', () => {
  it('gives the well-known digest of the empty payload', () => {
    expect(sha1Base32(Buffer.alloc(0))).toBe('sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ');
  });

  it('is base32 of the sha1', () => {
    const data = Buffer.from('hello archive');
    expect(sha1Base32(data)).toBe('sha1:' + base32(createHash('sha1').update(data).digest()));
    expect(labelledDigest(data, 'sha256')).toBe('sha256:' + base32(createHash('sha256').update(data).digest()));
  });
});

describe('DigestStream', () => {
  it('digests incrementally the same as in one go', () => {
    const d = new DigestStream();
    d.update(Buffer.from('hello ')).update(Buffer.from('archive'));
    expect(d.digest()).toBe(sha1Base32(Buffer.from('hello archive')));
    expect(d.bytes).toBe(13);
    expect(d.digest()).toBe(d.digest());
    expect(() => d.update(Buffer.from('x'))).toThrow();
  });

  it('passes bytes through unchanged when piped', async () => {
    const chunks = [Buffer.from('a'.repeat(1000)), Buffer.from('b'.repeat(70_000))];
    const d = new DigestStream();
    const seen: Buffer[] = [];
    await pipeline(Readable.from(chunks), d, new Writable({ write(c, _e, cb) { seen.push(c); cb(); } }));
    expect(Buffer.concat(seen).equals(Buffer.concat(chunks))).toBe(true);
    expect(d.digest()).toBe(sha1Base32(Buffer.concat(chunks)));
  });
});
