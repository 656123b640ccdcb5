/**
 * The layout of a crawl directory. Everything a crawl owns lives here as real files, so an
 * archivist can copy, back up or open it with other tools:
 *
 *   <dir>/crawl.sqlite      frontier, capture index, robots cache, settings (the truth)
 *   <dir>/warcs/*.warc.gz   the WARC files (".open" while being written)
 *   <dir>/logs/crawl.log    one line per URI outcome (Heritrix format)
 *   <dir>/logs/scope.log    one line per scope rejection, with the deciding rule
 *   <dir>/tmp/              spooled response bodies in flight (emptied on start)
 *   <dir>/.lock             the process crawling this directory (pid, start time, host)
 *   <dir>/requests/         live exclusions asked for by other processes (exclude-requests.ts)
 */
import fs from 'node:fs';
import path from 'node:path';
import { TroveError } from '../errors.ts';
import { describeOwner, tryLock } from '../storage/owner-lock.ts';

export interface CrawlPaths {
  dir: string;
  db: string;
  warcs: string;
  logs: string;
  crawlLog: string;
  scopeLog: string;
  tmp: string;
  lock: string;
  requests: string;
}

export function crawlPaths(dir: string): CrawlPaths {
  const abs = path.resolve(dir);
  return {
    dir: abs,
    db: path.join(abs, 'crawl.sqlite'),
    warcs: path.join(abs, 'warcs'),
    logs: path.join(abs, 'logs'),
    crawlLog: path.join(abs, 'logs', 'crawl.log'),
    scopeLog: path.join(abs, 'logs', 'scope.log'),
    tmp: path.join(abs, 'tmp'),
    lock: path.join(abs, '.lock'),
    requests: path.join(abs, 'requests'),
  };
}

/**
 * mkdir -p, walking up by hand: Node 24's recursive mkdir never returns on some virtual file
 * systems (e.g. a path under /proc, where mkdir answers ENOENT for ever), so only a parent that
 * really is missing is created, and any other error surfaces at once.
 */
function makeDir(dir: string): void {
  try {
    fs.mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && fs.statSync(dir).isDirectory()) return;
    const parent = path.dirname(dir);
    if (code !== 'ENOENT' || parent === dir || fs.existsSync(parent)) throw err;
    makeDir(parent);
    fs.mkdirSync(dir);
  }
}

export function isExistingCrawl(dir: string): boolean {
  return fs.existsSync(crawlPaths(dir).db);
}

/** Create the directory tree and prove it is writable (acquireLock then clears stale spool files). */
export function prepareCrawlDir(dir: string): CrawlPaths {
  const p = crawlPaths(dir);
  try {
    makeDir(p.dir);
    for (const d of [p.warcs, p.logs, p.tmp]) fs.mkdirSync(d, { recursive: true });
    const probe = path.join(p.dir, `.write-test-${process.pid}`);
    fs.writeFileSync(probe, 'ok');
    fs.rmSync(probe);
  } catch (err) {
    throw new TroveError('CRAWL_DIR_UNWRITABLE', `cannot write to crawl directory ${p.dir}: ${(err as Error).message}`, { dir: p.dir }, { cause: err });
  }
  return p;
}

/**
 * Take the directory lock (see owner-lock.ts: atomic, names the owner's pid and start time). A
 * lock held by a live process is an error (two crawlers must never write one database and one
 * WARC series), our own pid included; a lock left by a dead process (kill -9) is taken over.
 * Only the lock holder empties the spool folder: a refused second crawler must not delete the
 * running crawl's bodies in flight.
 */
export function acquireLock(p: CrawlPaths): () => void {
  const got = tryLock(p.lock);
  if (!got.ok) {
    throw new TroveError('CRAWL_DIR_LOCKED', `crawl directory ${p.dir} is in use by ${describeOwner(got.owner)}; stop that crawl first or use another directory`, { pid: got.owner.pid });
  }
  try {
    for (const f of fs.readdirSync(p.tmp)) fs.rmSync(path.join(p.tmp, f), { force: true, recursive: true });
  } catch (err) {
    got.release();
    throw new TroveError('CRAWL_DIR_UNWRITABLE', `cannot clear ${p.tmp}: ${(err as Error).message}`, { dir: p.dir }, { cause: err });
  }
  return got.release;
}
