/**
 * `trove get <archive> <url> [--at <timestamp>] [--headers] [--raw]`: what replay would serve
 * for a URL, on stdout. By default the decoded body; `--headers` puts the status line and the
 * headers first; `--raw` writes the record's block exactly as stored (with `--headers`, the WARC
 * header lines before it). Not archived: a message on stderr and exit code 1.
 */
import { once } from 'node:events';
import type { Command } from 'commander';
import { isTroveError } from '../errors.ts';
import { openArchive } from '../archive/archive-dir.ts';
import type { Archive } from '../archive/archive-dir.ts';
import { replay } from '../replay/replay.ts';
import { readRecordAt } from '../warc/read-records.ts';

/** Where the command writes; tests pass their own. Bytes are written as they are. */
export interface GetIo {
  stdout: { write(chunk: string | Uint8Array): unknown };
  stderr: { write(chunk: string): unknown };
}

/** Write with backpressure when the sink is a stream (a large record piped to another program). */
async function put(io: GetIo, chunk: string | Uint8Array): Promise<void> {
  if (io.stdout.write(chunk) === false && typeof (io.stdout as { once?: unknown }).once === 'function') {
    await once(io.stdout as unknown as NodeJS.EventEmitter, 'drain');
  }
}

/** `trove get … | head` closes the pipe early: that ends the output, it is not an error. */
function ignoreEpipe(io: GetIo): () => void {
  const out = io.stdout as Partial<NodeJS.WritableStream>;
  if (typeof out.on !== 'function' || typeof out.off !== 'function') return () => {};
  const onError = (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  };
  out.on('error', onError);
  return () => out.off!('error', onError);
}

interface GetOptions {
  at?: string;
  headers?: boolean;
  raw?: boolean;
}

export function registerGetCommand(program: Command, io: GetIo = { stdout: process.stdout, stderr: process.stderr }): void {
  program
    .command('get')
    .description('print what replay serves for a URL from an archive directory')
    .argument('<archive>', 'archive directory (a crawl directory or an import target)')
    .argument('<url>', 'the URL to look up')
    .option('--at <timestamp>', 'replay around this time (YYYYMMDDhhmmss, or a prefix such as 2024)')
    .option('--headers', 'print the status line and headers before the body')
    .option('--raw', 'print the stored record block instead of the decoded body')
    .action(async (dir: string, url: string, opts: GetOptions) => {
      let archive: Archive;
      try {
        archive = openArchive(dir, { create: false });
      } catch (err) {
        if (!isTroveError(err)) throw err;
        io.stderr.write(`trove get: ${err.message}\n`);
        process.exitCode = 1;
        return;
      }
      const restore = ignoreEpipe(io);
      try {
        await runGet(archive, url, opts, io);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EPIPE') return; // the reader went away
        if (!isTroveError(err)) throw err;
        io.stderr.write(`trove get: ${err.message} [${err.code}]\n`);
        process.exitCode = err.code === 'CAPTURE_BAD_TIMESTAMP' ? 2 : 1;
      } finally {
        archive.close();
        restore();
      }
    });
}

async function runGet(archive: Archive, url: string, opts: GetOptions, io: GetIo): Promise<void> {
  const res = await replay(archive, { url, ...(opts.at !== undefined ? { at: opts.at } : {}) });
  if (res.kind === 'not-archived') {
    const around = res.at ? ` around ${res.at}` : '';
    io.stderr.write(`trove get: not archived: ${res.url}${around}\n`);
    for (const n of res.nearest ?? []) io.stderr.write(`  nearby: ${n.url} ${n.ts}\n`);
    process.exitCode = 1;
    return;
  }
  if (res.fuzzy) io.stderr.write(`trove get: served ${res.capture.url} ${res.capture.ts} (${res.fuzzy})\n`);
  if (opts.raw) {
    const record = await readRecordAt(archive.resolveFile({ path: res.capture.file }), res.capture.offset);
    if (opts.headers) {
      const lines = [record.version, ...record.headers.map(([k, v]) => `${k}: ${v}`)];
      await put(io, `${lines.join('\r\n')}\r\n\r\n`);
    }
    for await (const chunk of record.block()) await put(io, Buffer.from(chunk));
    return;
  }
  if (opts.headers) {
    const lines = [`HTTP/1.1 ${res.status} ${res.statusText}`.trimEnd(), ...res.headers.map(([k, v]) => `${k}: ${v}`)];
    await put(io, `${lines.join('\r\n')}\r\n\r\n`);
  }
  await put(io, res.body);
}
