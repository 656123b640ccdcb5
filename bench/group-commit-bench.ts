/**
 * Group commit (issue 20): the crawl thread's database work per URI, alone, with and without
 * group commit, in the same run. The crawl benches carry this cost inside a whole crawl on a
 * loaded 2-core machine, where it drowns in noise; here the same calls the crawl makes for each
 * URI run back to back on a real crawl database (openDatabase: WAL, synchronous=NORMAL, the
 * crawl's schema): a claim, then in one transaction the outcome with 10 new outlinks and the
 * capture's 3 index rows (response, request, metadata), and the page's search text through
 * PageTextBuffer. "per URI" commits each claim and each completion on its own (the crawl before
 * group commit); "group N" shares one transaction among N units (core/storage/group-commit.ts,
 * committed by size only: no timer, so the figure does not depend on speed). The modes alternate
 * round by round; each run starts from an empty database.
 *
 * Prints CPU (user + system, this process: SQLite runs on the calling thread) and wall time per
 * URI, bytes written per URI (/proc/self/io wchar: the WAL appends and checkpoints), and the
 * ratio of each to "per URI" in the same round (medians over rounds).
 *
 * `--known=K` adds K outlinks per URI that the frontier has seen already (URIs scheduled earlier,
 * as a site's navigation links are: the Python docs' pages have about 41 known outlinks and one new).
 *
 *   node bench/group-commit-bench.ts [--uris=20000] [--rounds=3] [--groups=20,200,2000] [--known=0]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCaptureIndex, type RecordRow } from '../core/archive/capture-index.ts';
import type { Candidate } from '../core/frontier/frontier.ts';
import { createSqliteFrontier } from '../core/frontier/sqlite-frontier.ts';
import { PageTextBuffer } from '../core/crawl/page-text-buffer.ts';
import { atomic, GroupCommit } from '../core/storage/group-commit.ts';
import { closeDatabase, openDatabase } from '../core/storage/open-database.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const URIS = Number(arg('uris') ?? 20_000);
const ROUNDS = Math.max(1, Number(arg('rounds') ?? 3));
const GROUPS = (arg('groups') ?? '20,200,2000').split(',').map(Number);
const HOSTS = 50;
const OUTLINKS = 10;
const KNOWN = Number(arg('known') ?? 0);
const TEXT = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor '.repeat(40);

interface Figures {
  cpuMs: number;
  wallMs: number;
  wchar: number;
}

function wchar(): number {
  const m = /^wchar: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'));
  return m ? Number(m[1]) : 0;
}

/** Candidate number i, on one of HOSTS hosts; its fingerprint a 64-bit multiplicative spread of i. */
function candidate(i: number): Candidate {
  const host = `www.host${i % HOSTS}.example.test`;
  const url = `https://${host}/section/${i % 97}/page-${i}.html`;
  return { url, canonical: url, fingerprint: BigInt.asIntN(64, BigInt(i + 1) * 0x9e3779b97f4a7c15n), queueKey: host, hopsPath: i < HOSTS ? '' : 'L', via: i < HOSTS ? null : `https://${host}/`, seed: i < HOSTS };
}

function rows(fileId: number, i: number, url: string): RecordRow[] {
  const ts = '20261126031500';
  const date = '2026-11-26T03:15:00Z';
  const urlkey = `test,example,host${i % HOSTS})/section/${i % 97}/page-${i}.html`;
  const base = { fileId, length: 1400, targetUri: url, urlkey, ts, date };
  return [
    { ...base, offset: i * 3000, recordType: 'response', recordId: `<urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}>`, mime: 'text/html', status: 200, payloadDigest: `sha256:${i.toString(16).padStart(64, '0')}`, contentLength: 6000, page: true },
    { ...base, offset: i * 3000 + 1400, recordType: 'request', recordId: `<urn:uuid:00000000-0000-4000-9000-${String(i).padStart(12, '0')}>`, mime: null, status: null, payloadDigest: null, method: 'GET' },
    { ...base, offset: i * 3000 + 1900, recordType: 'metadata', recordId: `<urn:uuid:00000000-0000-4000-a000-${String(i).padStart(12, '0')}>`, mime: 'application/warc-fields', status: null, payloadDigest: null },
  ];
}

function run(groupUnits: number | null): Figures {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-group-bench-'));
  const db = openDatabase(path.join(dir, 'crawl.sqlite'));
  try {
    const frontier = createSqliteFrontier(db, { defaultMaxInFlight: 8 });
    const captures = createCaptureIndex(db);
    const fileId = captures.addFile({ path: 'warcs/bench.warc.gz', name: 'bench.warc.gz', source: 'crawl' });
    const group = groupUnits === null ? null : new GroupCommit(db, { maxUnits: groupUnits, maxDelayMs: 1e9, setTimer: () => () => undefined });
    const pageText = new PageTextBuffer(captures, group);
    const unit = <T>(fn: () => T): T => (group ? group.unit(fn) : fn());
    frontier.schedule(Array.from({ length: HOSTS }, (_, i) => candidate(i)));
    let next = HOSTS;
    group?.open();
    const w0 = wchar();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < URIS; i++) {
      const now = Date.now();
      const uri = unit(() => frontier.claim(now));
      if (!uri) throw new Error(`frontier ran dry after ${i} URIs`);
      const outlinks = Array.from({ length: OUTLINKS }, () => candidate(next++));
      // Known ones: spread over what was scheduled so far, the same for every mode.
      for (let k = 0; k < KNOWN; k++) outlinks.push(candidate(Math.floor(((k + 1) * (next - 1)) / (KNOWN + 1))));
      unit(() => {
        const ids = atomic(db, () => {
          frontier.complete(uri, { status: 200, queueReadyAt: now, page: true }, outlinks);
          return captures.addRecords(rows(fileId, i, uri.url));
        })();
        pageText.add(ids[0]!, `page ${i}`, TEXT);
      });
    }
    group?.suspend();
    pageText.flush();
    const c = process.cpuUsage(c0);
    return { cpuMs: (c.user + c.system) / 1000, wallMs: performance.now() - t0, wchar: wchar() - w0 };
  } finally {
    closeDatabase(db);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

const modes: (number | null)[] = [null, ...GROUPS];
const results = new Map<number | null, Figures[]>(modes.map((m) => [m, []]));
const load0 = os.loadavg()[0]!;
for (let r = 0; r < ROUNDS; r++) {
  // Alternate the order each round, so neither mode always runs on a warmer (or busier) machine.
  const order = r % 2 ? [...modes].reverse() : modes;
  for (const m of order) results.get(m)!.push(run(m));
  console.log(`round ${r + 1}, load ${os.loadavg()[0]!.toFixed(2)}: ${order.map((m) => `${m === null ? 'per URI' : `group ${m}`} ${(results.get(m)!.at(-1)!.cpuMs / URIS).toFixed(3)} ms/URI`).join('; ')}`);
}
console.log(`\ngroup-commit: ${URIS.toLocaleString('en')} URIs (claim + outcome with ${OUTLINKS} new${KNOWN ? ` and ${KNOWN} known` : ''} outlinks + 3 index rows + page text), ${ROUNDS} alternated rounds (medians); 1-min load ${load0.toFixed(2)} → ${os.loadavg()[0]!.toFixed(2)} on ${os.availableParallelism()} cores`);
console.log('| mode | CPU ms/URI | wall ms/URI | bytes written/URI | CPU vs per URI | written vs per URI |');
console.log('|---|---:|---:|---:|---:|---:|');
const base = results.get(null)!;
for (const m of modes) {
  const rs = results.get(m)!;
  const cpuRatio = median(rs.map((x, i) => x.cpuMs / base[i]!.cpuMs));
  const wRatio = median(rs.map((x, i) => x.wchar / base[i]!.wchar));
  console.log(
    `| ${m === null ? 'per URI' : `group ${m} units`} | ${(median(rs.map((x) => x.cpuMs)) / URIS).toFixed(3)} | ${(median(rs.map((x) => x.wallMs)) / URIS).toFixed(3)} | ${(median(rs.map((x) => x.wchar)) / URIS).toFixed(0)} | ${cpuRatio.toFixed(3)} | ${wRatio.toFixed(3)} |`,
  );
}
