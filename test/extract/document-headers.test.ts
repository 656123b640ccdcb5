/**
 * The crawl thread's extraction of an empty body (document-headers.ts) against the worker's
 * extractDocument: the same result for every kind of response that reaches it, and without
 * loading the HTML extractor or parse5.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractHeadersOnly } from '../../core/extract/document-headers.ts';
import { extractDocument, type DocumentInput } from '../../core/extract/extract-document.ts';
import { repoRoot } from '../helpers/corpus.ts';

const MIMES = ['text/html', 'TEXT/HTML; charset=utf-8', 'application/xhtml+xml', 'text/css', 'image/png', 'application/xml', 'application/gzip', 'text/plain', ''];
const URLS = ['http://site.test/dir/page.html', 'http://site.test/sitemap.xml'];
const HEADER_SETS: [string, string][][] = [
  [],
  [['Link', '</a.css>; rel=stylesheet, </next>; rel=next, </font.woff2>; rel=preload; as=font']],
  [['Location', '/moved']],
  [['Refresh', '0; url=/refreshed']],
  [['Content-Location', '/canonical.html'], ['Link', '</b.css>; rel=stylesheet']],
  [['Link', '</a.css>; rel=stylesheet, </next>; rel=next'], ['X-Robots-Tag', 'nofollow']],
  [['Link', '</next>; rel=next'], ['X-Robots-Tag', 'otherbot: nofollow'], ['X-Robots-Tag', 'trove: noindex']],
  [['Link', '</next>; rel=next'], ['X-Robots-Tag', 'none']],
];

describe('extractHeadersOnly', () => {
  it('gives what extractDocument gives for an empty body: every MIME type, status, header set, cap and agent', () => {
    let cases = 0;
    for (const mime of MIMES)
      for (const url of URLS)
        for (const headers of HEADER_SETS)
          for (const status of [200, 204, 301, 404])
            for (const maxLinks of [1000, 1])
              for (const agentToken of [undefined, 'trove']) {
                const input: DocumentInput = { url, status, headers, mime, maxLinks, body: Buffer.alloc(0), ...(agentToken ? { agentToken } : {}) };
                expect(extractHeadersOnly(input), JSON.stringify({ mime, url, headers, status, maxLinks, agentToken })).toEqual(extractDocument(input));
                cases++;
              }
    expect(cases).toBe(MIMES.length * URLS.length * HEADER_SETS.length * 4 * 2 * 2);
  });

  it('refuses a body: that is the extraction worker\'s', () => {
    expect(() => extractHeadersOnly({ url: URLS[0]!, status: 200, headers: [], mime: 'text/html', maxLinks: 10, body: Buffer.from('<a href=x>') })).toThrow(/not empty/);
  });

  it('loads neither the HTML extractor nor parse5', () => {
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { registerHooks } from 'node:module';
         const seen = [];
         registerHooks({ load(url, ctx, next) { seen.push(url); return next(url, ctx); } });
         await import(${JSON.stringify(path.join(repoRoot, 'core', 'extract', 'document-headers.ts'))});
         process.stdout.write(JSON.stringify(seen));`,
      ],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const loaded = JSON.parse(r.stdout) as string[];
    expect(loaded.some((u) => u.endsWith('/core/extract/document-headers.ts'))).toBe(true);
    expect(loaded.filter((u) => /parse5|entities|html-links|extract-document/.test(u))).toEqual([]);
  });
});
