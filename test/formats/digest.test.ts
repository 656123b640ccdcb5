import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RunningDigest, base32, digestFromKey, digestKey, fromBase32, labelledDigest, sha1Base32, sha1OfParts } from '../../core/formats/digest.ts';

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

describe('RunningDigest', () => {
  it('digests incrementally the same as in one go', () => {
    const d = new RunningDigest();
    d.update(Buffer.from('hello ')).update(Buffer.from('archive'));
    expect(d.digest()).toBe(sha1Base32(Buffer.from('hello archive')));
    expect(d.bytes).toBe(13);
    expect(d.digest()).toBe(d.digest());
    expect(() => d.update(Buffer.from('x'))).toThrow();
  });

  it('gives the same digest for no chunk, one chunk and many, in sha1 and sha256', () => {
    const data = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) & 0xff));
    for (const algorithm of ['sha1', 'sha256'] as const) {
      const want = (b: Buffer) => `${algorithm}:` + base32(createHash(algorithm).update(b).digest());
      expect(new RunningDigest(algorithm).digest()).toBe(want(Buffer.alloc(0)));
      expect(new RunningDigest(algorithm).update(data).digest()).toBe(want(data));
      const many = new RunningDigest(algorithm);
      for (let at = 0; at < data.length; at += 999) many.update(data.subarray(at, at + 999));
      expect(many.digest()).toBe(want(data));
      expect(many.bytes).toBe(data.length);
      expect(labelledDigest(data, algorithm)).toBe(want(data));
    }
    expect(sha1OfParts([data.subarray(0, 5), data.subarray(5)])).toBe(sha1Base32(data));
    expect(sha1OfParts([data])).toBe(sha1Base32(data));
    expect(sha1OfParts([])).toBe(sha1Base32(Buffer.alloc(0)));
  });
});

describe('fromBase32', () => {
  it('inverts base32 on the RFC 4648 vectors and on every byte value', () => {
    for (const input of ['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar']) expect(fromBase32(base32(Buffer.from(input)))?.toString()).toBe(input);
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    expect(fromBase32(base32(all))).toEqual(all);
  });

  it('refuses text base32() would not write: lower case, other letters, missing padding, stray bits', () => {
    for (const bad of ['mzxw6ytb', 'MZXW6YT1', 'MZXW6===X', 'MY', 'MZ======', 'MZXW6YQ']) expect(fromBase32(bad), bad).toBeNull();
  });

  it('decodes whole 8-character groups (its fast path) exactly as it decodes by re-encoding', () => {
    // The general rule, as fromBase32 decided every text before the fast path: decode, then keep
    // the bytes only if base32() writes the same text for them.
    const reference = (text: string): Buffer | null => {
      const body = text.replace(/=+$/, '');
      const out = Buffer.alloc(Math.floor((body.length * 5) / 8));
      let bits = 0;
      let value = 0;
      let n = 0;
      for (const ch of body) {
        const v = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(ch);
        if (v < 0) return null;
        value = ((value << 5) | v) & 0xffff;
        bits += 5;
        if (bits >= 8) {
          out[n++] = (value >>> (bits - 8)) & 0xff;
          bits -= 8;
        }
      }
      return base32(out) === text ? out : null;
    };
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    const texts: string[] = ['', 'AAAAAAAA', '77777777', '7777777=', 'AAAAAAA=', 'AAAAAAAAAAAAAAAA'];
    for (let i = 0; i < 3000; i++) {
      const digest = base32(createHash('sha1').update(String(i)).digest());
      const chars = [...digest];
      // Mutate some: another character (lower case, a digit base32 lacks, '=', non-ASCII, an astral one).
      if (i % 2 === 1) chars[rand(chars.length)] = ['a', 'z', '0', '1', '8', '9', '=', 'é', '\u{1F600}', ' ', 'Ā'][rand(11)]!;
      texts.push(chars.join(''));
      texts.push(base32(Buffer.from(Array.from({ length: 5 * (1 + rand(8)) }, () => rand(256)))));
    }
    for (const t of texts) expect(fromBase32(t), t).toEqual(reference(t));
  });
});

describe('digestKey / digestFromKey (the capture index stores payload digests as digestKey says)', () => {
  it('stores a sha1 in base32 as its 20 bytes and reads it back as the same text', () => {
    const d = sha1Base32(Buffer.from('payload'));
    const key = digestKey(d);
    expect(Buffer.isBuffer(key) && key.length).toBe(20);
    expect(key).toEqual(createHash('sha1').update('payload').digest());
    expect(digestFromKey(key)).toBe(d);
  });

  it('keeps any other digest as its text, so every digest reads back exactly as written', () => {
    const sha1 = createHash('sha1').update('x').digest();
    const others = [
      labelledDigest(Buffer.from('x'), 'sha256'),
      'sha1:' + sha1.toString('hex'),
      'sha1:' + base32(sha1).toLowerCase(),
      'SHA1:' + base32(sha1),
      'sha-1:' + base32(sha1),
      'sha1:' + base32(sha1).slice(0, 31) + '1',
      'md5:AAAA',
      '',
    ];
    for (const d of others) {
      expect(digestKey(d), d).toBe(d);
      expect(digestFromKey(digestKey(d))).toBe(d);
    }
    expect(digestKey(null)).toBeNull();
    expect(digestFromKey(null)).toBeNull();
  });
});
