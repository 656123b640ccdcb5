import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalize } from '../../core/scope/canonicalize.ts';
import { fingerprint, fingerprintHostBits, hash52, schemeAndAuthority } from '../../core/scope/fingerprint.ts';

const MIN_I64 = -(2n ** 63n);
const MAX_I64 = 2n ** 63n - 1n;
const LOW_40 = (1n << 40n) - 1n;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-fp-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function sampleUrls(hosts: number, perHost: number): string[] {
  const out: string[] = [];
  for (let h = 0; h < hosts; h++) {
    for (let i = 0; i < perHost; i++) out.push(canonicalize(`https://site${h}.example.net/section/${i % 37}/item-${i}.html?page=${i}`));
  }
  return out;
}

describe('fingerprint', () => {
  it('is stable across versions (stored fingerprints must not change)', () => {
    expect(fingerprint('http://example.com/')).toBe(5851822299449202332n);
    expect(fingerprint('http://example.com/a')).toBe(5851822619800518537n);
    expect(fingerprint('https://example.com/')).toBe(-7874596373255656481n);
    expect(fingerprint('http://example.org/a?b=1')).toBe(-756619341188408354n);
    expect(fingerprint('http://xn--n3h.com/')).toBe(-5266301673770332170n);
  });

  it('is a signed 64-bit value whose top 24 bits depend only on scheme and host', () => {
    const urls = ['http://example.com/', 'http://example.com/a', 'http://example.com/b?c=d', 'http://example.com/' + 'x'.repeat(3000)];
    const fps = urls.map(fingerprint);
    for (const fp of fps) {
      expect(typeof fp).toBe('bigint');
      expect(fp >= MIN_I64 && fp <= MAX_I64).toBe(true);
    }
    expect(new Set(fps.map(fingerprintHostBits)).size).toBe(1);
    expect(new Set(fps.map((fp) => fp & LOW_40)).size).toBe(urls.length);
    // another scheme, host or port is another cluster
    const others = ['https://example.com/a', 'http://example.org/a', 'http://example.com:8080/a'].map(fingerprint);
    for (const fp of others) expect(fingerprintHostBits(fp)).not.toBe(fingerprintHostBits(fps[0]!));
  });

  it('takes scheme+authority up to the path, query or fragment', () => {
    expect(schemeAndAuthority('http://example.com:8080/a?b')).toBe('http://example.com:8080');
    expect(schemeAndAuthority('http://example.com?b')).toBe('http://example.com');
    expect(schemeAndAuthority('http://example.com')).toBe('http://example.com');
    expect(schemeAndAuthority('no-scheme')).toBe('no-scheme');
  });

  it('has no collisions on 100k URLs over 50 hosts, and clusters each host when sorted', () => {
    const urls = sampleUrls(50, 2000);
    const fps = urls.map(fingerprint);
    expect(new Set(fps).size).toBe(urls.length);
    const sorted = urls.map((u, i) => ({ host: new URL(u).host, fp: fps[i]! })).sort((a, b) => (a.fp < b.fp ? -1 : a.fp > b.fp ? 1 : 0));
    let runs = 1;
    for (let i = 1; i < sorted.length; i++) if (sorted[i]!.host !== sorted[i - 1]!.host) runs++;
    expect(runs).toBe(50);
  });

  it('round-trips through an SQLite INTEGER PRIMARY KEY in a real database file', () => {
    const db = new Database(path.join(tmp, 'seen.sqlite'));
    try {
      db.defaultSafeIntegers(true);
      db.exec('CREATE TABLE seen (fp INTEGER PRIMARY KEY, url TEXT NOT NULL)');
      const insert = db.prepare('INSERT INTO seen (fp, url) VALUES (?, ?)');
      const urls = sampleUrls(5, 400);
      db.transaction(() => {
        for (const u of urls) insert.run(fingerprint(u), u);
      })();
      const rows = db.prepare('SELECT fp, url FROM seen').all() as { fp: bigint; url: string }[];
      expect(rows.length).toBe(urls.length);
      for (const r of rows) expect(r.fp).toBe(fingerprint(r.url));
      // seen-check by key
      const probe = db.prepare('SELECT url FROM seen WHERE fp = ?');
      expect((probe.get(fingerprint(urls[123]!)) as { url: string }).url).toBe(urls[123]);
      expect(probe.get(fingerprint('https://never.example.net/'))).toBeUndefined();
      // Integers at both extremes of the signed range are accepted by SQLite.
      insert.run(MIN_I64, 'min');
      insert.run(MAX_I64, 'max');
    } finally {
      db.close();
    }
  });

  it('is fast enough to run for every discovered link', () => {
    const urls = sampleUrls(10, 10_000);
    // ~70 ms for 200k on the reference machine. No timing bound (a loaded machine is slow, not
    // wrong): an accidental quadratic path would not finish within the test's timeout.
    const seen = new Set(urls.map((u) => fingerprint(u)));
    expect(seen.size).toBeGreaterThan(0);
  });
});

describe('hash52', () => {
  it('is a whole number below 2^52, the same for the same text, and distinct over 200,000 URLs of one site', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 200_000; i++) {
      const h = hash52(`http://127.0.0.1:8080/l1/${i % 10}/p${i}.html`);
      expect(Number.isSafeInteger(h) && h >= 0 && h < 2 ** 52).toBe(true);
      seen.add(h);
    }
    expect(seen.size).toBe(200_000);
    expect(hash52('http://a.test/x')).toBe(hash52(['http://a.test', '/x'].join('')));
  });
});
