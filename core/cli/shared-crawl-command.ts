/**
 * The operator's commands for a crawl shared by several workers (a PostgreSQL frontier), each
 * given the crawl's URL: `trove pause|stop <crawl-url>` set the crawl's control row, which every
 * worker reads with its report (about once a second) — the database refuses claims at once, so
 * in-flight URIs finish and nothing new starts on any worker; stop then seals each worker's WARCs
 * and ends it. `trove resume <crawl-url>` (crawl-command.ts) sets it running again: paused workers
 * carry on, and workers started again with `trove worker` join. `trove status <crawl-url>` prints
 * the whole crawl from its database: the frontier's counts, every worker's reported totals and
 * the capture-index rows they copied there (`--url` lists where each capture of one URL is).
 */
import type { Command } from 'commander';
import type { CommandIo } from './robots-command.ts';
import { createPostgresFrontier, type CrawlControl } from '../frontier/postgres-frontier.ts';
import { sharedCrawlStatus, type SharedCrawlStatus } from '../frontier/postgres-crawl-view.ts';
import { formatWorkers } from './crawl-progress.ts';
import { formatBytes } from '../formats/byte-size.ts';
import { parseSharedCrawlUrl } from './worker-command.ts';

export { parseSharedCrawlUrl };
import { surtKey } from '../scope/surt.ts';

/** Open the crawl's frontier under a name of its own for one look or one change, then close it. */
function withCrawl<T>(crawlUrl: string, fn: (f: ReturnType<typeof createPostgresFrontier>) => T): T {
  const { url, crawl } = parseSharedCrawlUrl(crawlUrl);
  // A short lease: this connection holds no URIs, and its row goes when it closes.
  const f = createPostgresFrontier({ url, crawl, worker: `trove-cli-${process.pid}`, leaseMs: 5000, mustExist: true });
  try {
    return fn(f);
  } finally {
    f.close();
  }
}

/** Set the whole crawl's control; returns how many workers are in the crawl to act on it. */
export function setSharedCrawlControl(crawlUrl: string, control: CrawlControl): number {
  return withCrawl(crawlUrl, (f) => {
    f.setControl(control);
    return f.workers().filter((w) => w.name !== f.worker).length;
  });
}

export function readSharedCrawlStatus(crawlUrl: string): SharedCrawlStatus {
  return withCrawl(crawlUrl, (f) => {
    const s = sharedCrawlStatus(f);
    return { ...s, workers: s.workers.filter((w) => w.name !== f.worker) };
  });
}

export function formatSharedStatus(crawlUrl: string, s: SharedCrawlStatus): string[] {
  const c = s.counts;
  return [
    `Shared crawl ${parseSharedCrawlUrl(crawlUrl).crawl}: ${s.control}`,
    `  URIs        ${c.done} downloaded, ${c.failed} failed, ${c.pending} queued, ${c.inFlight} in flight, ${c.seen} seen, ${c.queues} hosts`,
    `  pages       ${s.totals.pages} HTML pages`,
    `  bytes       ${formatBytes(s.totals.bytes)}; WARC ${formatBytes(s.totals.warcBytes)} in ${s.totals.warcFiles} files`,
    `  rate        ${s.totals.urisPerSec.toFixed(1)} URI/s across the running workers`,
    `  index       ${s.index.reduce((n, i) => n + i.records, 0)} records (${s.index.reduce((n, i) => n + i.responses, 0)} responses, ${s.index.reduce((n, i) => n + i.pages, 0)} pages) in ${s.index.reduce((n, i) => n + i.files, 0)} WARC files: ${s.index.map((i) => `${i.worker} ${i.records}`).join(', ') || '-'}`,
    `  folders     ${s.reports.map((r) => `${r.name}@${r.host}:${r.stats.dir}`).join(', ') || '-'}`,
    s.workers.length > 0 ? `  workers in the crawl now` : `  no worker is in the crawl now`,
    ...(s.workers.length > 0 ? formatWorkers(s.workers).map((l) => `  ${l}`) : []),
  ];
}

export function registerSharedCrawlCommands(program: Command, io: CommandIo): void {
  for (const [name, control, said] of [
    ['pause', 'paused', 'claims stop on every worker; in-flight URIs finish'],
    ['stop', 'stopped', 'every worker finishes its in-flight URIs, seals its WARCs and exits'],
  ] as const) {
    program
      .command(name)
      .description(`${name[0]!.toUpperCase()}${name.slice(1)} every worker of a shared crawl (trove resume <crawl-url> goes on)`)
      .argument('<crawl-url>', 'postgres://user@host:port/<database>/<crawl>')
      .action((crawlUrl: string) => {
        const n = setSharedCrawlControl(crawlUrl, control);
        io.stdout.write(`crawl ${parseSharedCrawlUrl(crawlUrl).crawl} ${control}: ${said} (${n} worker${n === 1 ? '' : 's'} in the crawl)\n`);
      });
  }
  program
    .command('status')
    .description('The whole of a shared crawl from its database: totals across workers, and every worker')
    .argument('<crawl-url>', 'postgres://user@host:port/<database>/<crawl>')
    .option('--json', 'print the status as JSON')
    .option('--url <url>', 'instead: every capture of this URL, in which worker\'s WARC file and where')
    .action((crawlUrl: string, opts: { json?: boolean; url?: string }) => {
      if (opts.url) {
        const rows = withCrawl(crawlUrl, (f) => f.capturesOf(surtKey(opts.url)));
        if (opts.json) io.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        else for (const r of rows) io.stdout.write(`${r.ts} ${r.status ?? '-'} ${r.recordType} ${r.worker} ${r.warcFile} ${r.offset} ${r.length} ${r.targetUri}\n`);
        if (rows.length === 0) process.exitCode = 1;
        return;
      }
      const s = readSharedCrawlStatus(crawlUrl);
      io.stdout.write(opts.json ? JSON.stringify(s, null, 2) + '\n' : formatSharedStatus(crawlUrl, s).join('\n') + '\n');
    });
}
