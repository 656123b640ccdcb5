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

  it('exits 1 for a directory that is not an archive, 2 for a bad timestamp', async () => {
    const missing = await get(path.join(tempDir(), 'nothing'), 'http://example.com/');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/not an archive directory|no archive directory/);
    const badTs = await get(dir, 'http://example.com/', '--at', 'yesterday');
    expect(badTs.code).toBe(2);
    expect(badTs.err).toContain('CAPTURE_BAD_TIMESTAMP');
  });
});
