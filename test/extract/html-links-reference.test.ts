import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { extractHtml } from '../../core/extract/html-links.ts';
import type { HtmlOptions } from '../../core/extract/html-links.ts';
import { extractHtml as referenceExtractHtml } from './reference/html-links.ts';
import { corpusPath, repoRoot } from '../helpers/corpus.ts';
import { PYTHON_DOCS, htmlFiles, pythonDocsPages } from '../helpers/html-pages.ts';

// The extraction worker's cuts (whole tags in the tokenizer, whitespace collapsed only where it
// changes, …) must not change a single result: every HTML page we have is extracted by the current
// extractHtml and by the one kept under reference/ (the code before those cuts), and the results
// (outlinks in order with their hops and contexts, title, text, directives, base, charset,
// truncation, skipped count) must be equal.

function same(body: Buffer, opts: HtmlOptions, what: string): void {
  const got = extractHtml(body, opts);
  const want = referenceExtractHtml(body, opts);
  // Compare cheaply first: a failure then shows the full difference.
  if (JSON.stringify(got) !== JSON.stringify(want)) expect(got, what).toEqual(want);
}

describe('extractHtml against the reference (the code before the worker CPU cuts)', () => {
  it('gives identical results on the HTML fixtures, with room for every link and with few', () => {
    const files = htmlFiles(path.join(repoRoot, 'test', 'fixtures'));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const body = fs.readFileSync(file);
      const baseUrl = `http://fixtures.test/${path.relative(repoRoot, file).split(path.sep).join('/')}`;
      for (const maxLinks of [20_000, 3]) same(body, { baseUrl, contentType: 'text/html', maxLinks, agentToken: 'trove' }, `${file}, maxLinks ${maxLinks}`);
    }
  });

  it('gives identical results on the HTML responses of the link-extraction WARC', async () => {
    const parser = new WARCParser(fs.createReadStream(corpusPath('warc', 'webarchive-commons', 'link-extraction-test.warc')));
    let n = 0;
    for await (const record of parser) {
      if (record.warcType !== 'response') continue;
      const body = Buffer.from(await record.readFully(false));
      const baseUrl = record.warcTargetURI ?? 'http://www.example.com/onclick.html';
      const contentType = record.httpHeaders?.headers.get('content-type') ?? undefined;
      same(body, { baseUrl, maxLinks: 1000, ...(contentType ? { contentType } : {}) }, baseUrl);
      n++;
    }
    expect(n).toBe(7);
  });

  it('gives identical results on every page of the Python docs', (ctx) => {
    const files = pythonDocsPages(ctx);
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      const body = fs.readFileSync(file);
      const baseUrl = `http://docs.python.test/3/${path.relative(PYTHON_DOCS, file).split(path.sep).join('/')}`;
      same(body, { baseUrl, contentType: 'text/html', maxLinks: 20_000 }, file);
    }
    // And cut short: the link cap reached part-way through a page.
    for (const file of files.slice(0, 40)) same(fs.readFileSync(file), { baseUrl: 'http://docs.python.test/3/x/y.html', maxLinks: 25 }, `${file}, maxLinks 25`);
  }, 120_000);
});
