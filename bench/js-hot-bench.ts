/**
 * The crawl thread's own JavaScript per URI, in isolation (issue 20): its hot functions in this
 * tree, run on the same inputs as a base revision's copies of them, in alternating rounds
 * (medians of process CPU time, not wall time), printed as µs per URI and the ratio — to set
 * beside a crawl's CPU per URI (~1,500 µs of crawl thread on the synthetic site), where a few
 * µs are lost in the scatter between runs.
 *
 * - the trap detector's observe (shape, signatures, fingerprint, records) over the 11,111-page
 *   synthetic site's 22,223 fetched URIs, as crawl100k-bench.ts serves them (page text included);
 * - the text fingerprint of a Python docs page's first 8 KiB (when python3-doc is installed);
 * - the WARC writer's per-record work: a URI's three records prepared, and each header built as
 *   the writer asks for it (at precompress, and its fields again at the write).
 *
 * The base's copies come from `git archive <base> core` into a temporary directory.
 *
 *   node bench/js-hot-bench.ts [--base=REV] [--rounds=N]     (REV defaults to main)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.join(here, '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const base = arg('base') ?? 'main';
const rounds = Math.max(1, Number(arg('rounds') ?? 9));
const DOC_PAGE = '/usr/share/doc/python3/html/library/os.html';
const ORIGIN = 'http://127.0.0.1:41234';
const LOREM = 'Synthetic page for the crawl benchmark: a heading, a paragraph of ordinary text for the full-text index, one image and links to the pages below it.';

interface Side {
  TrapDetector: typeof import('../core/crawl/trap-detector.ts').TrapDetector;
  textFingerprint: typeof import('../core/crawl/trap-fingerprint.ts').textFingerprint;
  prepareRecord: typeof import('../core/warc/write-record-input.ts').prepareRecord;
  buildRecordHeader: typeof import('../core/warc/record-header.ts').buildRecordHeader;
}

async function load(root: string): Promise<Side> {
  const url = (p: string) => pathToFileURL(path.join(root, p)).href;
  return {
    TrapDetector: (await import(url('core/crawl/trap-detector.ts'))).TrapDetector,
    textFingerprint: (await import(url('core/crawl/trap-fingerprint.ts'))).textFingerprint,
    prepareRecord: (await import(url('core/warc/write-record-input.ts'))).prepareRecord,
    buildRecordHeader: (await import(url('core/warc/record-header.ts'))).buildRecordHeader,
  };
}

/** The synthetic site's fetched URIs in breadth-first order, as the crawl observes them. */
function syntheticPages(): { url: string; parsed: URL; via: string | null; hops: number; text: string; leadsOn: boolean }[] {
  const out: ReturnType<typeof syntheticPages> = [];
  const page = (n: string) => `Page ${n} Page ${n} ${LOREM}`;
  out.push({ url: `${ORIGIN}/`, parsed: new URL(`${ORIGIN}/`), via: null, hops: 0, text: page(''), leadsOn: true });
  let level = [''];
  for (let depth = 1; depth <= 4; depth++) {
    const next: string[] = [];
    for (const parent of level) {
      const via = parent === '' ? `${ORIGIN}/` : `${ORIGIN}/p/${parent}.html`;
      for (let i = 0; i < 10; i++) {
        const n = `${parent}${i}`;
        const url = `${ORIGIN}/p/${n}.html`;
        out.push({ url, parsed: new URL(url), via, hops: depth, text: page(n), leadsOn: depth < 4 });
        const img = `${ORIGIN}/i/${n}.png`;
        out.push({ url: img, parsed: new URL(img), via: url, hops: depth + 1, text: '', leadsOn: false });
        next.push(n);
      }
    }
    level = next;
  }
  return out;
}

function docText(): string | null {
  if (!fs.existsSync(DOC_PAGE)) return null;
  return fs.readFileSync(DOC_PAGE, 'utf8').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
}

/** One URI's records as the crawl makes them, prepared and their headers built as the writer does. */
function records(side: Side, i: number, isBase: boolean): number {
  const body = Buffer.alloc(600, 97);
  const url = `${ORIGIN}/p/${i}.html`;
  const date = new Date(1_790_000_000_000 + i);
  const info = '<urn:uuid:00000000-0000-4000-8000-00000000000f>';
  const response = side.prepareRecord({
    type: 'response',
    targetUri: url,
    date,
    contentType: 'application/http; msgtype=response',
    fields: [['WARC-IP-Address', '127.0.0.1'], ['WARC-Payload-Digest', 'sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']],
    blockParts: [body],
    blockDigest: 'sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    blockDigestTrusted: true,
  });
  const request = side.prepareRecord({ type: 'request', targetUri: url, date, contentType: 'application/http; msgtype=request', fields: [['WARC-Concurrent-To', response.recordId]], blockParts: [body.subarray(0, 150)] });
  const metadata = side.prepareRecord({ type: 'metadata', targetUri: url, date, contentType: 'application/warc-fields', fields: [['WARC-Concurrent-To', response.recordId]], blockParts: [body.subarray(0, 200)] });
  let n = 0;
  for (const rec of [response, request, metadata]) {
    const r = rec as typeof rec & { header?(id: string | null): Buffer };
    if (isBase && typeof r.header !== 'function') {
      // A base from before prepared records built their own header (merge 55a136a): the fields
      // built and checked into a header at precompress, built again at the write.
      n += side.buildRecordHeader(rec.fields(info)).length;
      n += rec.fields(info).length;
    } else {
      n += r.header!(info).length;
      n += rec.fields(info).length;
    }
  }
  return n;
}

function cpuUs(fn: () => void): number {
  const t = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t);
  return d.user + d.system;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-js-hot-'));
try {
  execFileSync('sh', ['-c', `git -C "${repo}" archive "${base}" core | tar -x -C "${tmp}"`]);
  const sides: [string, Side, boolean][] = [
    ['base', await load(tmp), true],
    ['this tree', await load(repo), false],
  ];
  const pages = syntheticPages();
  const doc = docText();
  const work: [string, number, (s: Side, isBase: boolean) => void][] = [
    ['trap detector, synthetic site (per URI)', pages.length, (s) => {
      const d = new s.TrapDetector();
      for (const p of pages) d.observe(p);
    }],
    ['WARC records: prepare + headers (per URI, 3 records)', 5_000, (s, isBase) => {
      for (let i = 0; i < 5_000; i++) records(s, i, isBase);
    }],
  ];
  if (doc) {
    const text = doc.slice(0, 8192);
    work.push(['text fingerprint, a Python docs page (per page)', 300, (s) => {
      for (let i = 0; i < 300; i++) s.textFingerprint(text);
    }]);
  }
  console.log(`js-hot: base ${base} vs this tree, ${rounds} alternated rounds, medians of process CPU; load ${os.loadavg()[0]!.toFixed(1)}`);
  console.log('\n| work | base µs | this tree µs | ratio |\n|---|---:|---:|---:|');
  for (const [name, n, fn] of work) {
    const times: number[][] = [[], []];
    for (const [, s, isBase] of sides) fn(s, isBase); // warm up both
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < 2; k++) {
        const [, s, isBase] = sides[(r + k) % 2]!;
        times[isBase ? 0 : 1]!.push(cpuUs(() => fn(s, isBase)) / n);
      }
    }
    const b = median(times[0]!);
    const a = median(times[1]!);
    console.log(`| ${name} | ${b.toFixed(2)} | ${a.toFixed(2)} | ${(a / b).toFixed(2)} |`);
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
