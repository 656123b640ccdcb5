/**
 * `trove crawl <seed>... --out <dir>` (or `--seed <url>`, repeatable) and `trove resume <dir>`:
 * run a crawl in the foreground with a progress bar. The first Ctrl-C (SIGINT/SIGTERM) stops
 * gracefully (in-flight fetches finish, files close); a second stops at once and still leaves
 * valid files. Exit codes: 0 when the crawl finished, 1 when it failed, 2 for bad flags, seeds
 * or --out (nothing written) or a directory another process is crawling; errors are printed by main.ts in the one CLI form.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { TroveError } from '../errors.ts';
import { resumeCrawl, startCrawl, type CrawlController } from '../crawl/start-crawl.ts';
import type { CommandIo } from './robots-command.ts';
import { addCrawlOptions, settingsFromOptions } from './crawl-options.ts';
import { CrawlProgress, formatSummary } from './crawl-progress.ts';

const defaultIo: CommandIo = { stdout: process.stdout, stderr: process.stderr };

export function registerCrawlCommands(program: Command, io: CommandIo = defaultIo): void {
  addCrawlOptions(
    program
      .command('crawl')
      .description('Crawl from seeds into WARC files (continues the crawl if --out already holds one)')
      .argument('[seeds...]', 'seed URLs')
      .requiredOption('--out <dir>', 'crawl directory (created if missing)')
      .option('--frontier <crawl-url>', 'a shared crawl on PostgreSQL, postgres://user@host:port/<database>/<crawl>: other machines join with trove worker')
      .option('--worker-name <name>', 'with --frontier: this worker\'s name (default <host>-<pid>)'),
  ).action(async (seeds: string[], opts: Record<string, unknown>) => {
    await run(io, opts, () => {
      checkOutDir(String(opts.out));
      const settings = settingsFromOptions(opts, seeds);
      if (!settings.name) settings.name = path.basename(path.resolve(String(opts.out)));
      // A shared crawl's code (and the pg client) loads only for one.
      if (opts.frontier) return import('./worker-command.ts').then(({ startSharedCrawl }) => startSharedCrawl({ frontier: String(opts.frontier), dir: String(opts.out), worker: opts.workerName as string | undefined, settings }));
      return startCrawl({ dir: String(opts.out), settings });
    }, String(opts.out));
  });
  addCrawlOptions(
    program
      .command('resume')
      .description('Continue an interrupted or finished crawl from its database (flags override, e.g. a higher limit); given a shared crawl\'s postgres:// URL, let all its workers carry on')
      .argument('<dir>', 'crawl directory, or postgres://user@host:port/<database>/<crawl>'),
    'resume',
  ).action(async (dir: string, opts: Record<string, unknown>) => {
    if (/^postgres(ql)?:\/\//.test(dir)) {
      const { setSharedCrawlControl, parseSharedCrawlUrl } = await import('./shared-crawl-command.ts');
      const n = setSharedCrawlControl(dir, 'running');
      io.stdout.write(`crawl ${parseSharedCrawlUrl(dir).crawl} running: ${n} worker${n === 1 ? '' : 's'} in the crawl carry on; start stopped ones again with trove worker ${dir} --out <dir>\n`);
      return;
    }
    await run(io, opts, () => resumeCrawl(dir, settingsFromOptions(opts, [])), dir);
  });
}

/**
 * --out must be a directory Trove can write, or a path it can create one at: say which it is
 * not in a sentence (exit 2), rather than let mkdir or open fail later with a bare errno.
 */
export function checkOutDir(out: string): void {
  const bad = (why: string) => new TroveError('CRAWL_OUT_INVALID', `--out ${out}: ${why}`, { out });
  let existing = path.resolve(out);
  while (!fs.existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  let st: fs.Stats;
  try {
    st = fs.statSync(existing);
  } catch {
    throw bad('cannot be read (no such place)');
  }
  if (!st.isDirectory()) {
    throw bad(existing === path.resolve(out) ? 'is a file, not a directory (give a new or existing crawl directory)' : `${existing} is a file, so no directory can be made under it`);
  }
  try {
    fs.accessSync(existing, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    throw bad(existing === path.resolve(out) ? 'cannot write in this directory (permission denied)' : `cannot create it: no permission to write in ${existing}`);
  }
}

/** A file-system refusal inside the crawl directory (a read-only disk, say) as a sentence, not errno text. */
function outDirError(err: unknown, dir: string | undefined): unknown {
  const e = err as NodeJS.ErrnoException;
  if (!dir || typeof e?.code !== 'string' || typeof e.path !== 'string' || !path.resolve(e.path).startsWith(path.resolve(dir))) return err;
  const why: Record<string, string> = { EACCES: 'permission denied', EPERM: 'not permitted', EROFS: 'the disk is read-only', ENOTDIR: 'a part of the path is a file', ENOSPC: 'the disk is full' };
  return why[e.code] ? new TroveError('CRAWL_OUT_INVALID', `cannot write the crawl in ${dir}: ${why[e.code]} (${e.path})`, { dir }) : err;
}

/** Run a crawl in the foreground with the progress line (`trove recrawl` shares it). */
export const runCrawlInForeground = (io: CommandIo, opts: Record<string, unknown>, start: () => Promise<CrawlController>, dir?: string): Promise<void> => run(io, opts, start, dir);

async function run(io: CommandIo, opts: Record<string, unknown>, start: () => Promise<CrawlController>, dir?: string): Promise<void> {
  let crawl: CrawlController;
  try {
    crawl = await start();
  } catch (err) {
    throw outDirError(err, dir);
  }
  const progress = new CrawlProgress(io, { tty: Boolean((process.stderr as { isTTY?: boolean }).isTTY), enabled: opts.progress !== false });
  for (const n of crawl.startNotes) progress.message(`trove: ${n.message}`);
  const off = crawl.on((e) => {
    if (e.type === 'snapshot') progress.update(e.snapshot);
    else if (e.type === 'log' && e.code === 'LOGGED_OUT') {
      // Nobody can resume a paused CLI crawl: it stops (in-flight fetches finish), and
      // `trove resume` goes on once the profile is refreshed; the logged-out pages are queued again.
      progress.message(`trove: ${e.message}`);
      crawl.stop({ reason: 'logged-out' });
    } else if (e.type === 'log' && e.level !== 'info') progress.message(`trove: ${e.message}`);
    else if (e.type === 'log') progress.message(`trove: ${e.message}`);
  });
  // The crawl may have paused (disk guard) before this listener was attached: say why now.
  const first = crawl.snapshot();
  if (first.message) progress.message(`trove: ${first.message}`);
  let signals = 0;
  const onSignal = () => {
    signals++;
    progress.message(signals === 1 ? 'trove: stopping after in-flight fetches (Ctrl-C again to stop now)…' : 'trove: stopping now…');
    crawl.stop({ now: signals > 1 });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const final = await crawl.finished();
    progress.stop();
    for (const line of formatSummary(final)) io.stdout.write(line + '\n');
    if (final.state === 'failed') process.exitCode = 1;
    if (final.finishReason === 'logged-out') {
      io.stderr.write(`trove: logged out: refresh the profile (trove profile create NAME --url LOGIN_URL --update), then: trove resume ${final.dir}\n`);
      process.exitCode = 1;
    }
    // The controller said why the URI limit left no page (robots.txt counts); say how to go on.
    if (final.finishReason === 'limit-uris' && final.pages === 0) {
      io.stderr.write(`trove: to go on: trove resume ${final.dir} --limit-uris N (or --no-limit-uris)\n`);
    }
    // Pages held back by the page limit are kept in the queue: a higher limit fetches them.
    if (final.heldByPageLimit) {
      io.stderr.write(`trove: to fetch the pages held back: trove resume ${final.dir} --limit-pages N with a higher N (or --no-limit-pages)\n`);
    }
  } finally {
    off();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
