import path from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerGetCommand } from '../../core/cli/get-command.ts';
import { importFiles } from '../../core/archive/import-warc.ts';
import { corpusPath, withoutMissingGpl } from '../helpers/corpus.ts';
import { itUsing } from '../helpers/gpl-tests.ts';
import { removeTempDirs, tempDir } from './archive-fixture.ts';

let dir: string;

beforeAll(async () => {
  dir = path.join(tempDir(), 'archive');
  const report = await importFiles(dir, withoutMissingGpl(['warc/warcio/example.warc.gz', 'warc/ukwa/transfer_compression_brotli.warc']).map((f) => corpusPath(f)));
  expect(report.problems).toEqual([]);
});
afterAll(removeTempDirs);
afterEach(() => {
  process.exitCode = undefined;
});

async function get(...args: string[]): Promise<{ out: Buffer; err: string; code: number | undefined }> {
  const out: Buffer[] = [];
  let err = '';
  const program = new Command().exitOverride();
  registerGetCommand(program, {
    stdout: { write: (c: string | Uint8Array) => out.push(Buffer.from(c)) },
    stderr: { write: (c: string) => (err += c) },
  });
  process.exitCode = undefined;
  await program.parseAsync(['get', ...args], { from: 'user' });
  return { out: Buffer.concat(out), err, code: process.exitCode as number | undefined };
}

describe('trove get', () => {
  itUsing('warc/ukwa')('prints the decoded body replay would serve', async () => {
    const r = await get(dir, 'http://tokemon.sb.statsbiblioteket.dk/');
    expect(r.code ?? 0).toBe(0);
    expect(r.out.toString()).toContain('Extremely simple webpage');
    expect(r.err).toBe('');
  });

  it('prints the status line and headers first with --headers', async () => {
    const r = await get(dir, 'http://example.com/', '--at', '20170306040206', '--headers');
    const text = r.out.toString('latin1');
    const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body, 'latin1')}`);
    expect(body).toContain('Example Domain');
  });

  itUsing('warc/ukwa')('writes the stored block with --raw (still brotli-encoded)', async () => {
    const r = await get(dir, 'http://tokemon.sb.statsbiblioteket.dk/', '--raw');
    const text = r.out.toString('latin1');
    expect(text.startsWith('HTTP/1.1 200 OK')).toBe(true);
    expect(text).toMatch(/Content-Encoding: br/i);
    expect(text).not.toContain('Extremely simple webpage');
    const withWarc = await get(dir, 'http://tokemon.sb.statsbiblioteket.dk/', '--raw', '--headers');
    expect(withWarc.out.toString('latin1')).toMatch(/^WARC\/1\.0\r\nWARC-Type: response\r\n/);
  });

  it('exits 1 with a message on stderr when the URL is not archived', async () => {
    const r = await get(dir, 'http://not.archived.test/');
    expect(r.code).toBe(1);
    expect(r.out.length).toBe(0);
    expect(r.err).toContain('not archived: http://not.archived.test/');
  });

  it('exits 2 for a directory that is not an archive and for a bad timestamp, as every command does', async () => {
    const missing = await get(path.join(tempDir(), 'nothing'), 'http://example.com/');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('[ARCHIVE_NOT_FOUND]');
    const badTs = await get(dir, 'http://example.com/', '--at', 'yesterday');
    expect(badTs.code).toBe(2);
    expect(badTs.err).toContain('CAPTURE_BAD_TIMESTAMP');
  });
});

describe('trove get and captures made by POST (warcio post-test.warc.gz: three POSTs to httpbin.org)', () => {
  let postDir: string;
  beforeAll(async () => {
    postDir = path.join(tempDir(), 'archive');
    const report = await importFiles(postDir, [corpusPath('warc/warcio/post-test.warc.gz')]);
    expect(report.problems).toEqual([]);
  });

  it('a plain URL says the capture was a POST and how to address each one exactly', async () => {
    const r = await get(postDir, 'https://httpbin.org/post');
    expect(r.code).toBe(1);
    expect(r.out.length).toBe(0);
    const lines = r.err.split('\n');
    expect(lines[0]).toBe('trove get: not archived as GET: https://httpbin.org/post; it was captured by POST:');
    expect(r.err).toContain('  20140610001151 POST http://httpbin.org/post\n');
    expect(r.err).toContain(`    exactly: trove get ${postDir} 'http://httpbin.org/post?__wb_method=post&a=1&b=[]&c=3'\n`);
    expect(r.err).toContain(`    or:      trove get ${postDir} https://httpbin.org/post --method POST --at 20140610001151\n`);
    expect(r.err).toContain(`    exactly: trove get ${postDir} 'http://httpbin.org/post?__wb_method=post&foo=bar&test=abc'\n`);
    // The POST to /post?foo=bar is another URL: not listed for the plain one.
    expect(r.err).not.toContain('20140610001255');
  });

  it('each way it names reaches exactly that capture', async () => {
    const form = JSON.parse((await get(postDir, 'http://httpbin.org/post?__wb_method=post&foo=bar&test=abc')).out.toString()) as { form: Record<string, string> };
    expect(form.form).toEqual({ foo: 'bar', test: 'abc' });
    const other = await get(postDir, 'http://httpbin.org/post?__wb_method=post&a=1&b=[]&c=3');
    expect(other.code ?? 0).toBe(0);
    expect(other.err).toBe('');
    const byFlag = await get(postDir, 'https://httpbin.org/post', '--method', 'POST', '--at', '20140610000859');
    expect(byFlag.code ?? 0).toBe(0);
    expect((JSON.parse(byFlag.out.toString()) as { form: Record<string, string> }).form).toEqual({ foo: 'bar', test: 'abc' });
  });

  it('a URL with a query finds its own POST, and a URL with none still says not archived', async () => {
    const q = await get(postDir, 'https://httpbin.org/post?foo=bar');
    expect(q.code).toBe(1);
    expect(q.err).toContain(`    exactly: trove get ${postDir} 'http://httpbin.org/post?__wb_method=post&data=^&foo=bar'\n`);
    const none = await get(postDir, 'https://httpbin.org/get');
    expect(none.code).toBe(1);
    expect(none.err.split('\n')[0]).toBe('trove get: not archived: https://httpbin.org/get');
  });
});
