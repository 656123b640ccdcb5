import { describe, expect, it } from 'vitest';
import { packExtraction, packLinks, unpackExtraction, unpackLinks } from '../../core/extract/extract-message.ts';
import type { DocumentExtraction } from '../../core/extract/extract-document.ts';
import type { Outlink } from '../../core/extract/outlink.ts';

function result(outlinks: Outlink[]): DocumentExtraction {
  return { outlinks, title: 'T', text: 'some text', nofollow: false, noindex: true, truncatedLinks: false, isHtml: true, kind: 'html', skipped: 2 };
}

describe('extract-message packing', () => {
  it('round-trips outlinks, order, hops and contexts included', () => {
    const links: Outlink[] = [
      { url: 'http://a.test/1', hop: 'L', context: 'a/@href' },
      { url: 'http://a.test/2', hop: 'E', context: 'img/@src' },
      { url: 'http://a.test/1', hop: 'E', context: 'img/@src' },
      { url: 'https://b.test/x?y=%0A', hop: 'X', context: 'div/@onclick' },
      { url: 'http://a.test/3', hop: 'L', context: 'a/@href' },
    ];
    const packed = packLinks(links);
    expect(Array.isArray(packed)).toBe(false);
    expect(packed).toMatchObject({ count: 5, hops: 'LEEXL', contextTable: ['a/@href', 'img/@src', 'div/@onclick'] });
    expect(unpackLinks(packed as Exclude<typeof packed, Outlink[]>)).toEqual(links);
    expect(unpackExtraction(packExtraction(result(links)))).toEqual(result(links));
    expect(unpackExtraction(packExtraction(result([])))).toEqual(result([]));
    expect(unpackExtraction(packExtraction({ ...result([]), error: 'x failed' }))).toEqual({ ...result([]), error: 'x failed' });
  });

  it('survives structured clone', () => {
    const links = Array.from({ length: 10_000 }, (_, i): Outlink => ({ url: `http://a.test/p/${i}`, hop: i % 2 ? 'L' : 'E', context: `t${i % 300}/@src` }));
    expect(unpackExtraction(structuredClone(packExtraction(result(links))))).toEqual(result(links));
  });

  it('falls back to the plain array for what does not fit the packed shape', () => {
    const newline: Outlink[] = [{ url: 'http://a.test/\nx', hop: 'L', context: 'a/@href' }];
    expect(packLinks(newline)).toBe(newline);
    expect(unpackExtraction(packExtraction(result(newline)))).toEqual(result(newline));
    const many = Array.from({ length: 70_000 }, (_, i): Outlink => ({ url: `http://a.test/${i}`, hop: 'X', context: `on${i}/@x` }));
    expect(packLinks(many)).toBe(many);
    const empty: Outlink[] = [{ url: '', hop: 'L', context: '' }, { url: 'http://a.test/', hop: 'L', context: '' }];
    expect(unpackExtraction(packExtraction(result(empty)))).toEqual(result(empty));
  });
});
