/**
 * The trap detector's packed records: what is read back is what was kept (fingerprints with the
 * top bit set, chains of URLs with parameters, kinds past the cap), and past `max` records the
 * oldest URL is the one forgotten, as with the Map of objects they replace.
 */
import { describe, expect, it } from 'vitest';
import { TrapRecords, type UrlRecord } from '../../core/crawl/trap-records.ts';

const kind = (host: string, shape: string, params: string[] = []) => ({ host, shape, params });

describe('TrapRecords', () => {
  it('reads back hops, fingerprint, kind and every chain pair', () => {
    const r = new TrapRecords(10, 10);
    const a: UrlRecord = { shape: kind('a.test', '/cal/N/'), fp: [0xffffffff, 0x80000001], hops: 7, chain: [3, 4] };
    const b: UrlRecord = { shape: kind('a.test', '/list?page', ['?page', '?sid']), fp: null, hops: 2, chain: [1, 2, 5, 0, 0, 0] };
    r.set('http://a.test/cal/1/', a);
    r.set('http://a.test/list?page=2&sid=1', b);
    expect(r.get('http://a.test/cal/1/')).toEqual(a);
    expect(r.get('http://a.test/list?page=2&sid=1')).toEqual(b);
    expect(r.get('http://a.test/other')).toBeUndefined();
  });

  it('shares one kind among records of the same host, shape and parameters', () => {
    const r = new TrapRecords(10, 10);
    r.set('http://a.test/p/1', { shape: kind('a.test', '/p/N'), fp: null, hops: 1, chain: [1, 1] });
    r.set('http://a.test/p/2', { shape: kind('a.test', '/p/N'), fp: null, hops: 1, chain: [1, 1] });
    expect(r.get('http://a.test/p/1')!.shape).toBe(r.get('http://a.test/p/2')!.shape);
  });

  it('keeps kinds past the cap per record', () => {
    const r = new TrapRecords(10, 1);
    r.set('http://a.test/x/1', { shape: kind('a.test', '/x/N'), fp: null, hops: 1, chain: [1, 1] });
    r.set('http://b.test/y/1', { shape: kind('b.test', '/y/N', ['?q']), fp: null, hops: 1, chain: [1, 1, 0, 0] });
    expect(r.get('http://b.test/y/1')!.shape).toEqual(kind('b.test', '/y/N', ['?q']));
    expect(r.get('http://a.test/x/1')!.shape).toEqual(kind('a.test', '/x/N'));
  });

  it('forgets the oldest URL past max, and a URL kept again stays in its place', () => {
    const r = new TrapRecords(3, 10);
    const rec = (hops: number): UrlRecord => ({ shape: kind('a.test', '/p/N'), fp: null, hops, chain: [1, hops] });
    r.set('u1', rec(1));
    r.set('u2', rec(2));
    r.set('u3', rec(3));
    r.set('u1', rec(10));
    r.set('u4', rec(4));
    expect(r.size).toBe(3);
    expect(r.get('u1')).toBeUndefined();
    expect(r.get('u2')!.hops).toBe(2);
    expect(r.get('u4')!.hops).toBe(4);
    r.set('u5', rec(5));
    expect(r.get('u2')).toBeUndefined();
    expect([r.get('u3')!.hops, r.get('u4')!.hops, r.get('u5')!.hops]).toEqual([3, 4, 5]);
  });
});
