/**
 * A site over time, measured (issue 38): a copy of the Python docs served by nginx is crawled;
 * then 5% of its pages are edited (text), 1% deleted, 1% added (linked from the edited ones) and
 * 20% touched without change (a new mtime, so nginx's ETag and Last-Modified change); the crawl
 * is repeated with `trove recrawl` and compared with `trove changes`. The test runs it on a
 * section of the docs, the `recrawl` bench on all of them; both read the same figures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startNginx, type Nginx } from './bench-nginx.ts';
import { startCrawl } from '../core/crawl/start-crawl.ts';
import { planRecrawl, startRecrawl } from '../core/crawl/recrawl.ts';
import { openArchive } from '../core/archive/archive-dir.ts';
import { changeReport, type ChangeReport } from '../core/export/change-report.ts';
import { replay } from '../core/replay/replay.ts';
import type { CrawlSnapshot } from '../core/api/crawl-snapshot.ts';
import { openArchiveFile } from '../core/warc/read-records.ts';

export const DOCS = '/usr/share/doc/python3/html';

export interface ScenarioOptions {
  /** Where the site copy and the crawls go (a fresh directory). */
  work: string;
  /** The section crawled (its pages are the ones edited): `/` for all of the docs, `/c-api/` for a sample. */
  section: string;
  /** Deterministic choice of pages. */
  random: () => number;
  /** --revisit-alone: same-URL revisits without their request and metadata records. */
  revisitAlone?: boolean;
}

export interface ScenarioResult {
  origin: string;
  first: CrawlSnapshot;
  second: CrawlSnapshot;
  firstDir: string;
  secondDir: string;
  pages: number;
  edited: string[];
  deleted: string[];
  added: string[];
  touched: string[];
  report: ChangeReport;
  firstWarcBytes: number;
  secondWarcBytes: number;
  /** Requests of the recrawl in nginx's access log: [path, status]. */
  recrawlRequests: [string, number][];
  nginx: Nginx;
}

const fast = { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0, concurrency: 4, perHost: 4 };

function htmlFiles(root: string, rel: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const r = path.posix.join(rel, e.name);
    if (e.isDirectory() && !e.name.startsWith('_')) out.push(...htmlFiles(root, r));
    else if (e.isFile() && e.name.endsWith('.html')) out.push(r);
  }
  return out;
}

function warcBytes(dir: string): number {
  const w = path.join(dir, 'warcs');
  return fs.readdirSync(w).reduce((n, f) => n + fs.statSync(path.join(w, f)).size, 0);
}

function pick<T>(items: T[], n: number, random: () => number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < n && pool.length > 0) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return out;
}

/** Edit, delete, add and touch pages of the section, as the issue says; returns the URL paths of each set. */
function changeSite(site: string, section: string, random: () => number) {
  const rel = section.replace(/^\/+/, '');
  const files = htmlFiles(site, rel).filter((f) => !/(^|\/)(index|search|genindex[^/]*)\.html$/.test(f));
  const n = files.length;
  const edited = pick(files, Math.max(1, Math.round(n * 0.05)), random);
  const rest = files.filter((f) => !edited.includes(f));
  const deleted = pick(rest, Math.max(1, Math.round(n * 0.01)), random);
  const untouched = rest.filter((f) => !deleted.includes(f));
  const touched = pick(untouched, Math.max(1, Math.round(n * 0.2)), random);
  const added = Array.from({ length: Math.max(1, Math.round(n * 0.01)) }, (_, i) => path.posix.join(rel, `added-page-${i + 1}.html`));
  for (const [i, f] of added.entries()) {
    fs.writeFileSync(path.join(site, f), `<!doctype html><html><head><meta charset="utf-8"><title>Added page ${i + 1}</title></head><body><h1>Added page ${i + 1}</h1><p>A page that was not there at the first crawl.</p></body></html>\n`);
  }
  for (const [i, f] of edited.entries()) {
    const file = path.join(site, f);
    const links = added.map((a) => `<a href="/${a}">${path.basename(a)}</a>`).join(' ');
    const html = fs.readFileSync(file, 'utf8');
    const at = html.indexOf('</h1>');
    const insert = `</h1><p>Edited between the crawls (${i + 1}): this paragraph is new text. ${links}</p>`;
    fs.writeFileSync(file, at >= 0 ? html.slice(0, at) + insert + html.slice(at + 5) : html.replace('</body>', `<p>Edited (${i + 1}).</p></body>`));
  }
  for (const f of deleted) fs.rmSync(path.join(site, f));
  const later = new Date(Date.now() + 3600_000);
  for (const f of touched) fs.utimesSync(path.join(site, f), later, later);
  const url = (f: string) => '/' + f;
  return { pages: n, edited: edited.map(url), deleted: deleted.map(url), added: added.map(url), touched: touched.map(url) };
}

/** Run the scenario; the caller closes `result.nginx`. */
export async function runRecrawlScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const site = path.join(opts.work, 'site');
  // nginx's workers may run as another user (a root master hands them to nobody): let them in.
  fs.chmodSync(opts.work, 0o755);
  fs.cpSync(fs.realpathSync(DOCS), site, { recursive: true, dereference: true });
  // Files copied now are older than any touch below: an mtime a second in the past.
  const log = path.join(opts.work, 'access.log');
  const nginx = await startNginx(site, `access_log ${log};`);
  const firstDir = path.join(opts.work, 'docs');
  const seed = nginx.origin + opts.section;
  // The recrawl takes its settings from this crawl: --revisit-alone reaches it from here.
  const a = await startCrawl({ dir: firstDir, settings: { ...fast, seeds: [seed], revisitAlone: opts.revisitAlone ?? false } });
  const first = await a.finished();
  const changed = changeSite(site, opts.section, opts.random);
  const logBefore = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').length : 0;
  const plan = planRecrawl(firstDir, path.join(opts.work, 'docs-2'));
  const b = await startRecrawl(plan);
  const second = await b.finished();
  const recrawlRequests = fs
    .readFileSync(log, 'utf8')
    .slice(logBefore)
    .split('\n')
    .map((l) => /"GET (\S+) HTTP\/[\d.]+" (\d{3})/.exec(l))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m): [string, number] => [m[1]!, Number(m[2])]);
  const A = openArchive(firstDir, { create: false });
  const B = openArchive(plan.dir, { create: false });
  let report: ChangeReport;
  try {
    report = await changeReport({ archive: A }, { archive: B });
  } finally {
    A.close();
    B.close();
  }
  return { origin: nginx.origin, first, second, firstDir, secondDir: plan.dir, ...changed, report, firstWarcBytes: warcBytes(firstDir), secondWarcBytes: warcBytes(plan.dir), recrawlRequests, nginx };
}

/**
 * What a crawl's WARC bytes are made of: compressed bytes and count per kind of record (a
 * revisit of its own URL, and the request and metadata records beside it, counted apart).
 */
export async function recordCosts(dir: string): Promise<Map<string, { count: number; bytes: number }>> {
  const out = new Map<string, { count: number; bytes: number }>();
  const w = path.join(dir, 'warcs');
  for (const f of fs.readdirSync(w).sort()) {
    const file = path.join(w, f);
    const recs: { offset: number; kind: string }[] = [];
    const ownRevisits = new Set<string>();
    for await (const r of openArchiveFile(file)) {
      const own = r.type === 'revisit' && r.get('WARC-Refers-To-Target-URI') === r.targetUri;
      if (own) ownRevisits.add(r.get('WARC-Record-ID') ?? '');
      const beside = ownRevisits.has(r.get('WARC-Concurrent-To') ?? '');
      recs.push({ offset: r.offset, kind: own ? 'revisit of its own URL' : beside ? `${r.type} of such a revisit` : r.type });
    }
    const size = fs.statSync(file).size;
    recs.forEach((r, i) => {
      const k = out.get(r.kind) ?? { count: 0, bytes: 0 };
      k.count++;
      k.bytes += (recs[i + 1]?.offset ?? size) - r.offset;
      out.set(r.kind, k);
    });
  }
  return out;
}

/** Every 200 URL the recrawl holds, replayed from it and fetched live: the URLs whose bodies differ. */
export async function replayMismatches(r: ScenarioResult): Promise<{ compared: number; differ: string[] }> {
  const B = openArchive(r.secondDir, { create: false });
  const differ: string[] = [];
  let compared = 0;
  try {
    const urls = new Set<string>();
    for (let after = 0; ; ) {
      const rows = B.index.cdxjRows(after, 5000);
      if (rows.length === 0) break;
      for (const row of rows) {
        after = row.id;
        if ((row.recordType === 'response' || row.recordType === 'revisit') && row.targetUri && (row.status === 200 || row.status === 304)) urls.add(row.targetUri);
      }
    }
    for (const url of urls) {
      const live = await fetch(url);
      const body = Buffer.from(await live.arrayBuffer());
      if (live.status !== 200) continue;
      const got = await replay(B, { url });
      compared++;
      if (got.kind !== 'archived' || got.status !== 200 || !got.body.equals(body)) differ.push(url);
    }
  } finally {
    B.close();
  }
  return { compared, differ };
}
