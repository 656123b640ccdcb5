/**
 * One chunked decoder: strict on live responses (llhttp's leniencies only), tolerant on stored
 * bodies (as pywb and warcio de-chunk archived records).
 */
import { describe, expect, it } from 'vitest';
import { ChunkedDecoder, dechunk } from '../../core/formats/chunked-coding.ts';

function strict(raw: string): string {
  const out: Buffer[] = [];
  new ChunkedDecoder((b) => out.push(Buffer.from(b))).write(Buffer.from(raw, 'latin1'));
  return Buffer.concat(out).toString('latin1');
}

describe('chunked coding', () => {
  it('decodes the same bytes the same way, live or stored', () => {
    const raw = '5\r\nHello\r\n7;ext=1\r\n, world\r\n0\r\nTrailer: x\r\n\r\n';
    expect(strict(raw)).toBe('Hello, world');
    expect(dechunk(Buffer.from(raw))).toEqual({ body: Buffer.from('Hello, world'), complete: true });
  });

  it('tolerates in stored bodies what a live response may not have', () => {
    for (const raw of ['3\r\nabc0\r\n\r\n', ' 3\r\nabc\r\n0\r\n\r\n', '3\r\r\nabc\r\n0\r\n\r\n']) {
      expect(() => strict(raw), JSON.stringify(raw)).toThrow(/bad chunked encoding/);
      expect(dechunk(Buffer.from(raw)), JSON.stringify(raw)).toEqual({ body: Buffer.from('abc'), complete: true });
    }
  });

  it('reports where a live message ends', () => {
    const d = new ChunkedDecoder(() => {});
    const buf = Buffer.from('2\r\nhi\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n');
    expect(d.write(buf)).toBe(12);
    expect(d.done).toBe(true);
  });
});
