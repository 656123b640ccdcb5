/**
 * `trove get <archive> <url> [--at <timestamp>] [--headers] [--raw]`: what replay would serve
 * for a URL, on stdout. By default the decoded body; `--headers` puts the status line and the
 * headers first; `--raw` writes the record's block exactly as stored (with `--headers`, the WARC
 * header lines before it). Not archived: a message on stderr and exit code 1.
 *
 * A capture made by POST (or PUT…) is keyed as pywb keys it, `?__wb_method=post&<body>`, so a
 * plain URL never reaches it. When a GET finds nothing, the command looks for such captures of
 * the same URL and says how to address each one exactly: the `__wb_method` URL (method and body,
 * as pywb and ReplayWeb.page spell it), or `--method POST --at <ts>`.
 */
import { once } from 'node:events';
import type { Command } from 'commander';
import { isTroveError } from '../errors.ts';
import { exitCodeFor } from '../api/error-codes.ts';
import { formatCliError } from './cli-errors.ts';
import { openArchive } from '../archive/archive-dir.ts';
import type { Archive } from '../archive/archive-dir.ts';
import type { queryRecords as QueryRecords } from '../archive/record-query.ts';
import { surtKey } from '../scope/surt.ts';
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
  method?: string;
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
    .option('--method <method>', 'the request method of the capture (POST, PUT…); default GET')
    .action(async (dir: string, url: string, opts: GetOptions) => {
      let archive: Archive;
      try {
        archive = openArchive(dir, { create: false });
      } catch (err) {
        if (!isTroveError(err)) throw err;
        io.stderr.write(formatCliError('get', err.message, err.code));
        process.exitCode = exitCodeFor(err.code);
        return;
      }
      const restore = ignoreEpipe(io);
      try {
        await runGet(archive, dir, url, opts, io);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EPIPE') return; // the reader went away
        if (!isTroveError(err)) throw err;
        io.stderr.write(`trove get: ${err.message} [${err.code}]\n`);
        process.exitCode = exitCodeFor(err.code);
      } finally {
        archive.close();
        restore();
      }
    });
}

async function runGet(archive: Archive, dir: string, url: string, opts: GetOptions, io: GetIo): Promise<void> {
  const method = (opts.method ?? 'GET').toUpperCase();
  // Replay and the record query load when `trove get` runs: every command imports this file.
  const [{ replay }, { queryRecords }] = await Promise.all([import('../replay/replay.ts'), import('../archive/record-query.ts')]);
  const res = await replay(archive, { url, method, ...(opts.at !== undefined ? { at: opts.at } : {}) });
  if (res.kind === 'not-archived') {
    const around = res.at ? ` around ${res.at}` : '';
    const others = method === 'GET' ? otherMethodCaptures(queryRecords, archive, res.url) : [];
    if (others.length > 0) {
      const methods = [...new Set(others.map((c) => c.method))].join(', ');
      io.stderr.write(`trove get: not archived as GET: ${res.url}${around}; it was captured by ${methods}:\n`);
      for (const c of others.slice(0, MAX_LISTED)) {
        io.stderr.write(`  ${c.ts} ${c.method} ${c.url}\n    exactly: trove get ${quote(dir)} ${quote(c.address)}\n    or:      trove get ${quote(dir)} ${quote(res.url)} --method ${c.method} --at ${c.ts}\n`);
      }
      if (others.length > MAX_LISTED) io.stderr.write(`  … and ${others.length - MAX_LISTED} more\n`);
      process.exitCode = 1;
      return;
    }
    io.stderr.write(`trove get: not archived${method !== 'GET' ? ` as ${method}` : ''}: ${res.url}${around}\n`);
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

/** Non-GET captures listed at most. */
const MAX_LISTED = 10;

interface OtherMethodCapture {
  url: string;
  ts: string;
  method: string;
  /** The URL that reaches exactly this capture: its key's `__wb_method=…&body` query on the URL. */
  address: string;
}

/** Captures of `url` (same SURT key once the method part is taken off) made with a method other than GET. */
function otherMethodCaptures(queryRecords: typeof QueryRecords, archive: Archive, url: string): OtherMethodCapture[] {
  let base: string;
  try {
    const u = new URL(url);
    base = `${u.origin}${u.pathname}`;
  } catch {
    return [];
  }
  const want = surtKey(url);
  const out: OtherMethodCapture[] = [];
  const page = queryRecords(archive, { urlPrefix: base, type: ['response', 'revisit', 'resource'] }, { limit: 1000 });
  for (const r of page.rows) {
    if (!r.method || r.method.toUpperCase() === 'GET' || !r.url || !r.ts || surtKey(r.url) !== want) continue;
    const key = archive.index.byId(r.id)?.urlkey ?? '';
    const query = key.slice(key.indexOf('?__wb_method=') + 1);
    const address = key.includes('?__wb_method=') ? `${r.url.split('#')[0]!.split('?')[0]}?${query}` : r.url;
    out.push({ url: r.url, ts: r.ts, method: r.method.toUpperCase(), address });
  }
  return out.sort((a, b) => b.ts.localeCompare(a.ts));
}

/** Quote for a POSIX shell when needed (URLs carry `&`, `?`, `[]`). */
function quote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
