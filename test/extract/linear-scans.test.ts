/**
 * Documents up to 4 MiB are extracted on the crawl thread (issue 20; core/extract/extract-pool.ts),
 * where no time limit can stop a runaway job, so the extractor's scans must take time linear in
 * the input. Three regexes did not: `/,+$/` on a srcset candidate, `/['"\\]+$/` on a CSS url()
 * value and `<loc(?:\s[^>]*)?>` over a sitemap each tried every position of a run as a start
 * (O(n²): 100,000 characters took ~9 s). Here each hostile shape, long enough that the quadratic
 * form would run for minutes, gives the answer the regex gave on its short form; and the
 * replacements give the regexes' answers on many short inputs.
 */
import { describe, expect, it } from 'vitest';
import { extractCss, stripStrayQuotes } from '../../core/extract/css-links.ts';
import { srcsetUrls } from '../../core/extract/html-link-rules.ts';
import { extractSitemap } from '../../core/extract/sitemap.ts';

const N = 400_000;
const BASE = 'http://site.test/';

/** Every string of length ≤ 4 over `alphabet`. */
function shortStrings(alphabet: string): string[] {
  let out = [''];
  const all = [''];
  for (let len = 1; len <= 4; len++) {
    out = out.flatMap((s) => [...alphabet].map((c) => s + c));
    all.push(...out);
  }
  return all;
}

describe('srcset candidates ending in commas', () => {
  it('cuts the trailing commas as /,+$/ did', () => {
    for (const s of shortStrings(',a ')) {
      const value = `x${s}, y 2x`;
      const first = value.split(/\s/)[0]!;
      if (first.endsWith(',')) expect(srcsetUrls(value)[0]).toBe(first.replace(/,+$/, ''));
    }
  });

  it(`takes a run of ${N.toLocaleString('en')} commas inside a candidate in linear time`, () => {
    expect(srcsetUrls(`a${','.repeat(N)}b,`)).toEqual([`a${','.repeat(N)}b`]);
  });
});

describe('CSS url() values wrapped in stray quotes', () => {
  it('strips leading and trailing quotes and backslashes as the regexes did', () => {
    for (const s of shortStrings(`"'\\ a`)) expect(stripStrayQuotes(s)).toBe(s.replace(/^['"\\]+/, '').replace(/['"\\]+$/, ''));
    expect(extractCss(`p{background:url(\\"img.png\\")}`, BASE, 10).map((l) => l.url)).toEqual([`${BASE}img.png`]);
  });

  it(`takes ${N.toLocaleString('en')} quotes before the value in linear time`, () => {
    expect(extractCss(`p{background:url(${'"'.repeat(N)}x.png)}`, BASE, 10).map((l) => l.url)).toEqual([`${BASE}x.png`]);
    expect(extractCss(`p{background:url(x${"'".repeat(N)}y.png)}`, BASE, 10).length).toBeLessThanOrEqual(1);
  });
});

describe('sitemap <loc> elements', () => {
  const sitemap = (body: string, prefix = '') =>
    Buffer.from(`<?xml version="1.0"?><${prefix}urlset xmlns${prefix ? `:${prefix.slice(0, -1)}` : ''}="http://www.sitemaps.org/schemas/sitemap/0.9">${body}</${prefix}urlset>`);

  it('finds <loc>, <loc …> and <LOC> (and a prefix in any case) but not <locx>', () => {
    const body = '<url><loc>/a</loc></url><url><loc id="1">/b</loc></url><url><LOC>/c</LOC></url><url><locx>/d</locx></url><url><loc\n>/e</loc></url>';
    expect(extractSitemap(sitemap(body), BASE, 100).urls).toEqual(['a', 'b', 'c', 'e'].map((p) => BASE + p));
    const prefixed = '<sm:url><SM:LOC>/a</SM:LOC></sm:url><sm:url><sm:loc>/b</sm:loc></sm:url>';
    expect(extractSitemap(sitemap(prefixed, 'sm:'), BASE, 100).urls).toEqual([`${BASE}a`, `${BASE}b`]);
  });

  it(`takes ${N.toLocaleString('en')} bytes of "<loc " without a ">" in linear time`, () => {
    expect(extractSitemap(sitemap(`<url><loc>/first</loc></url>${'<loc x'.repeat(N / 6)}`), BASE, 100).urls).toEqual([`${BASE}first`]);
  });
});
