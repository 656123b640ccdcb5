/**
 * `trove export <archive> [--wacz f] [--cdxj f] [--warc f …filters] [--mirror dir] [--report dir]`:
 * one or more exports of an archive directory in one run. A progress bar with an ETA on a
 * terminal (plain lines otherwise; Ctrl-C cancels and removes the partial file), one
 * summary line per export on stdout, problems (and a warning about a signing key ReplayWeb.page
 * will not verify) on stderr.
 *
 * Exit code (process.exitCode, never process.exit): 0 when every export succeeded, 1 when one
 * failed (the others still run), 2 for bad usage (no export asked for, filters without --warc,
 * a bad timestamp, an unreadable signing key, a folder that is not an archive).
 */
import fs from 'node:fs';
import type { KeyObject } from 'node:crypto';
import type { Command } from 'commander';
import { openArchive } from '../archive/archive-dir.ts';
import type { Archive } from '../archive/archive-dir.ts';
import { isCancelled, isTroveError } from '../errors.ts';
import type { ExportProgress, ProgressFn } from '../export/export-types.ts';
import type { WaczExportResult } from '../export/export-wacz.ts';
import { loadSigningKey, signingKeyWarning } from '../archive/wacz-sign.ts';
import { formatBytes } from '../formats/byte-size.ts';
import { exitCodeFor, type CliCode } from '../api/error-codes.ts';
import { CLI_USAGE, formatCliError } from './cli-errors.ts';
import { CANCELLED_EXIT, OperationProgress, PLAIN_EVERY_S, cancelOnSignals, parseEvery, type OperationReading } from './operation-progress.ts';

export interface ExportIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
}

interface ExportCommandOptions {
  wacz?: string;
  title?: string;
  pageText?: boolean;
  verify?: boolean;
  signKey?: string;
  cdxj?: string;
  warc?: string;
  redactCredentials?: boolean;
  urlPrefix?: string;
  host?: string;
  from?: string;
  to?: string;
  mime?: string;
  mirror?: string;
  report?: string;
  progress?: boolean;
  progressEvery?: number;
}

type Job = { kind: string; run: (archive: Archive, onProgress: ProgressFn | undefined, signal?: AbortSignal) => Promise<string> };

export function registerExportCommand(program: Command, io: ExportIo = { stdout: process.stdout, stderr: process.stderr }): void {
  program
    .command('export')
    .description('export an archive: WACZ package, CDXJ index, WARC subset, offline mirror folder, crawl reports')
    .argument('<archive>', 'archive directory (a crawl, or one made by `trove import`)')
    .option('--wacz <file>', 'write a WACZ 1.1.1 package')
    .option('--title <title>', 'WACZ title (default: the crawl name)')
    .option('--page-text', "put each page's text in the WACZ pages.jsonl")
    .option('--verify', "hash every WARC again while packing it and fail if it no longer matches the fixity recorded when it was written")
    .option('--sign-key <key.pem>', 'sign the WACZ with this ECDSA P-384 private key (PEM; P-256 works but ReplayWeb.page will not verify it)')
    .option('--cdxj <file>', 'write a sorted CDXJ index of every capture')
    .option('--warc <file>', 'write a WARC of the captures chosen by the filters below (.warc.gz: gzipped)')
    .option('--url-prefix <url>', '--warc: URLs starting with this one')
    .option('--host <host>', '--warc: captures of this host')
    .option('--from <timestamp>', '--warc: captured at or after (YYYYMMDDhhmmss, or a prefix of it)')
    .option('--to <timestamp>', '--warc: captured at or before (YYYYMMDDhhmmss, or a prefix of it)')
    .option('--mime <type>', '--warc: this MIME type, or a family ending in / (image/)')
    .option('--redact-credentials', '--warc, --wacz: write a marker instead of Cookie/Authorization values in request records')
    .option('--mirror <dir>', 'write the site as files to browse offline (a new or empty folder)')
    .option('--report <dir>', 'write crawl reports (CSV, JSON and Heritrix text reports)')
    .option('--no-progress', 'no progress bar')
    .option('--progress-every <seconds>', `when stderr is not a terminal, a progress line this often (default ${PLAIN_EVERY_S})`, parseEvery)
    .exitOverride((err) => {
      // Help and version are not failures; any other commander error is bad usage.
      process.exitCode = exitCodeFor(err.code as CliCode);
      throw err;
    })
    .action(async (dir: string, opts: ExportCommandOptions) => {
      const usage = (message: string, code: CliCode = CLI_USAGE): void => {
        io.stderr.write(formatCliError('export', message, code));
        process.exitCode = exitCodeFor(code);
      };
      const planned = plan(opts, (warning) => io.stderr.write(`trove export: warning: ${warning}\n`));
      if (typeof planned === 'string') return usage(planned);
      let archive: Archive;
      try {
        archive = openArchive(dir, { create: false });
      } catch (err) {
        if (!isTroveError(err)) throw err;
        return usage(err.message, err.code);
      }
      let exit = 0;
      const cancel = cancelOnSignals('export', io);
      try {
        for (const job of planned) {
          const bar = new OperationProgress(job.kind, io, { enabled: opts.progress !== false, ...(opts.progressEvery !== undefined ? { every: opts.progressEvery } : {}) });
          try {
            const line = await job.run(archive, (p) => bar.update(reading(p), p.phase), cancel.signal);
            bar.stop();
            io.stdout.write(`${line}\n`);
          } catch (err) {
            bar.stop();
            if (!isTroveError(err)) throw err;
            if (isCancelled(err)) {
              io.stderr.write(`trove export: ${job.kind} cancelled; nothing of it was left behind\n`);
              exit = CANCELLED_EXIT;
              break;
            }
            io.stderr.write(formatCliError('export', `${job.kind} failed: ${err.message}`, err.code));
            exit = Math.max(exit, exitCodeFor(err.code));
          }
        }
      } finally {
        cancel.dispose();
        archive.close();
      }
      process.exitCode = exit;
    });
}

/** How the WARCs' hashes were had, and any WARC that changed since its fixity was recorded. */
function fixityNote(r: WaczExportResult): string {
  const parts: string[] = [];
  if (r.fixity.recorded > 0) parts.push(`${r.fixity.recorded} with the fixity recorded when written`);
  if (r.fixity.verified > 0) parts.push(`${r.fixity.verified} hashed and matching it`);
  const fresh = r.fixity.hashed - r.fixity.verified;
  if (fresh > 0) parts.push(`${fresh} hashed now`);
  let note = `WARC hashes: ${parts.join(', ') || 'none'}`;
  if (r.changedSinceRecorded.length > 0) {
    note += `\nwarning: ${r.changedSinceRecorded.join(', ')} changed since written (the hashes in the package are of the bytes as they are now)`;
  }
  return note;
}

/**
 * The exports to run, in order, or a usage message. Each exporter is imported when its job runs:
 * every `trove` command imports this file, and a crawl should not carry the exporters' code.
 */
function plan(opts: ExportCommandOptions, warn: (warning: string) => void): Job[] | string {
  const jobs: Job[] = [];
  const filters = (['urlPrefix', 'host', 'from', 'to', 'mime'] as const).filter((k) => opts[k] !== undefined);
  if (!opts.wacz && !opts.cdxj && !opts.warc && !opts.mirror && !opts.report) return 'nothing to do: give --wacz, --cdxj, --warc, --mirror or --report';
  if (filters.length > 0 && !opts.warc) return `${filters.map(flag).join(', ')} select captures for --warc; give --warc <file>`;
  if (opts.redactCredentials && !opts.warc && !opts.wacz) return '--redact-credentials applies to --warc and --wacz; give one of them';
  if ((opts.signKey || opts.title || opts.pageText || opts.verify) && !opts.wacz) return '--sign-key, --title, --page-text and --verify apply to --wacz; give --wacz <file>';
  for (const k of ['from', 'to'] as const) {
    const v = opts[k];
    if (v !== undefined && !/^\d{4,14}$/.test(v)) return `--${k} must be a timestamp YYYYMMDDhhmmss (or a prefix of it, at least the year), not ${v}`;
  }
  let signingKey: KeyObject | undefined;
  if (opts.signKey) {
    try {
      signingKey = loadSigningKey(fs.readFileSync(opts.signKey));
    } catch (err) {
      if (isTroveError(err)) return `--sign-key ${opts.signKey}: ${err.message} [${err.code}]`;
      return `--sign-key ${opts.signKey}: ${(err as Error).message}`;
    }
    const warning = signingKeyWarning(signingKey);
    if (warning) warn(`--sign-key ${opts.signKey}: ${warning}`);
  }

  if (opts.wacz) {
    const out = opts.wacz;
    jobs.push({
      kind: 'wacz',
      run: async (archive, onProgress, signal) => {
        const { exportWacz } = await import('../export/export-wacz.ts');
        const r = await exportWacz(archive, out, {
          ...(signal ? { signal } : {}),
          ...(opts.title ? { title: opts.title } : {}),
          ...(opts.pageText ? { pageText: true } : {}),
          ...(opts.verify ? { verifyFixity: true } : {}),
          ...(signingKey ? { signingKey } : {}),
          ...(opts.redactCredentials ? { redactCredentials: true } : {}),
          ...(onProgress ? { onProgress } : {}),
        });
        const redacted = opts.redactCredentials ? `, ${r.redacted} request record${r.redacted === 1 ? '' : 's'} redacted` : '';
        return `wacz: ${r.path}: ${r.warcs} WARC file${r.warcs === 1 ? '' : 's'}, ${r.captures} captures (ZipNum index), ${r.pages} pages, ${formatBytes(r.bytes)}${r.signed ? ', signed' : ''}${redacted}; ${fixityNote(r)}`;
      },
    });
  }
  if (opts.cdxj) {
    const out = opts.cdxj;
    jobs.push({
      kind: 'cdxj',
      run: async (archive, onProgress, signal) => {
        const { exportCdxj } = await import('../export/export-cdxj.ts');
        const r = await exportCdxj(archive, out, { ...(onProgress ? { onProgress } : {}), ...(signal ? { signal } : {}) });
        return `cdxj: ${r.path}: ${r.lines} captures, ${formatBytes(r.bytes)}`;
      },
    });
  }
  if (opts.warc) {
    const out = opts.warc;
    jobs.push({
      kind: 'warc',
      run: async (archive, onProgress, signal) => {
        const { exportWarcSubset } = await import('../export/export-warc-subset.ts');
        const r = await exportWarcSubset(archive, out, {
          ...(opts.urlPrefix ? { urlPrefix: opts.urlPrefix } : {}),
          ...(opts.host ? { host: opts.host } : {}),
          ...(opts.from ? { from: opts.from } : {}),
          ...(opts.to ? { to: opts.to } : {}),
          ...(opts.mime ? { mime: opts.mime } : {}),
          ...(opts.redactCredentials ? { redactCredentials: true } : {}),
          ...(onProgress ? { onProgress } : {}),
          ...(signal ? { signal } : {}),
        });
        const notes = [r.materialized ? `${r.materialized} revisits written as responses` : '', r.unresolvedRevisits ? `${r.unresolvedRevisits} revisits without their original` : '']
          .filter(Boolean)
          .join(', ');
        return `warc: ${r.path}: ${r.captures} captures, ${r.records} records${notes ? ` (${notes})` : ''}, ${formatBytes(r.bytes)}`;
      },
    });
  }
  if (opts.mirror) {
    const out = opts.mirror;
    jobs.push({
      kind: 'mirror',
      run: async (archive, onProgress, signal) => {
        const { exportMirror } = await import('../export/export-mirror.ts');
        const r = await exportMirror(archive, out, { ...(onProgress ? { onProgress } : {}), ...(signal ? { signal } : {}) });
        return `mirror: ${r.dir}: ${r.files} files (${r.rewritten} with links rewritten, ${r.linksLocal} local and ${r.linksAbsolute} absolute links${r.placeholders ? `, ${r.placeholders} placeholders` : ''}), ${formatBytes(r.bytes)}`;
      },
    });
  }
  if (opts.report) {
    const out = opts.report;
    jobs.push({
      kind: 'report',
      run: async (archive, onProgress, signal) => {
        const { exportReport } = await import('../export/export-report.ts');
        const r = await exportReport(archive, out, { ...(onProgress ? { onProgress } : {}), ...(signal ? { signal } : {}) });
        const s = r.data.summary;
        return `report: ${r.dir}: ${r.files.length} files (${s.urisProcessed} URIs, ${s.hosts} hosts, ${s.failures} failures)`;
      },
    });
  }
  return jobs;
}

function flag(k: string): string {
  return `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** An export's report as a progress reading: the WARC phase counts bytes, the others their units. */
function reading(p: ExportProgress): OperationReading {
  return { done: p.done, total: p.total, bytes: p.phase === 'warcs', note: `${p.phase} | ${formatBytes(p.bytes)} written` };
}
