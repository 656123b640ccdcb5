/**
 * Extraction benchmark: every .html file of Debian's Python 3.11 docs (`apt-get install
 * python3-doc`: ~530 pages, ~35 MB), read into memory once, then timed stage by stage:
 *
 *   decode        sniffHtmlCharset + TextDecoder over each body (what extractHtml decodes)
 *   tokenizer     parse5's Tokenizer with an empty handler over the decoded text, fed as
 *                 extractHtml feeds it: the reference every other row is read against
 *   run_tokenizer the same with RunTokenizer (run-tokenizer.ts), the tokenizer extractHtml uses:
 *                 the same tokens, ordinary characters read in runs
 *   extractHtml   links + title + visible text (decode included)
 *   extract       extractDocument (dispatch, header links, extractHtml, de-duplication)
 *   pool1/pool2   ExtractPool.run over all files with 1 and 2 workers, message passing included;
 *                 cpu is the whole process (all threads); `main thread cpu` is what the crawl
 *                 loop's thread spent (copying bodies out, deserializing results)
 *
 * In-process stages each run in a fresh worker thread (so one stage's JIT feedback, e.g. parse5
 * seeing a second handler class, does not slow the next) and take the median of 3 timed passes
 * after a warm-up pass. Each row shows wall time and CPU time (the stage's thread; for the pool,
 * the whole process): on a shared 2-core machine the CPU figure is the steadier one.
 *
 * With --baseline=DIR (a checkout of another commit, e.g. `git archive <rev> | tar -x -C DIR`
 * and a node_modules link in it), extractHtml is also timed A/B: the baseline tree's and this
 * one's, each in fresh worker threads, alternated (baseline, this, baseline, this …, --rounds=N,
 * default 3), with the after/before ratio of the medians, and the first pass of each worker
 * (cold: JIT not warm yet, as in a crawl, where each page is extracted once) beside the warm
 * median, and how many times parse5's state functions ran per pass in each (one round of its
 * per-character loop each).
 *
 * Run: node bench/extract-bench.ts [dir] [--baseline=DIR [--rounds=N]]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Tokenizer } from 'parse5';
import type { TokenHandler } from 'parse5';
import { extractDocument } from '../core/extract/extract-document.ts';
import type { DocumentInput } from '../core/extract/extract-document.ts';
import { extractHtml } from '../core/extract/html-links.ts';
import { sniffHtmlCharset } from '../core/extract/html-charset.ts';
import { RunTokenizer } from '../core/extract/run-tokenizer.ts';
import { ExtractPool } from '../core/extract/extract-pool.ts';

const DOCS = '/usr/share/doc/python3-doc/html';
const BASE = 'http://docs.python.test/3.11/';
const MAX_LINKS = 20_000; // the crawl's default maxLinksPerDocument
const CHUNK_CHARS = 1024 * 1024;

export interface ExtractBenchOptions {
  dir?: string;
  /** Print the table (default true when run directly). */
  print?: boolean;
  /** Timed passes per in-process stage (median taken); default 3. */
  passes?: number;
}

interface Page {
  url: string;
  body: Buffer;
}

function listHtml(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        const st = fs.statSync(p, { throwIfNoEntry: false });
        isDir = st?.isDirectory() ?? false;
        isFile = st?.isFile() ?? false;
      }
      if (isDir) walk(p);
      else if (isFile && e.name.endsWith('.html')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

function input(p: Page): DocumentInput {
  return { url: p.url, status: 200, headers: [['Content-Type', 'text/html']], body: p.body, mime: 'text/html', maxLinks: MAX_LINKS };
}

const emptyHandler: TokenHandler = {
  onComment() {},
  onDoctype() {},
  onStartTag() {},
  onEndTag() {},
  onEof() {},
  onCharacter() {},
  onNullCharacter() {},
  onWhitespaceCharacter() {},
};

function decodePage(body: Buffer): string {
  const charset = sniffHtmlCharset(body, 'text/html').encoding;
  return new TextDecoder(charset).decode(body);
}

function tokenize(html: string, Impl: typeof Tokenizer = Tokenizer): void {
  const t = new Impl({ sourceCodeLocationInfo: false }, emptyHandler);
  for (let off = 0; off < html.length; off += CHUNK_CHARS) t.write(html.slice(off, off + CHUNK_CHARS), false);
  t.write('', true);
}

const STAGES = ['decode', 'tokenizer', 'run_tokenizer', 'extract_html', 'extract'] as const;
type Stage = (typeof STAGES)[number];

function loadPages(dir: string): Page[] {
  return listHtml(dir).map((f) => ({ url: BASE + path.relative(dir, f).split(path.sep).join('/'), body: fs.readFileSync(f) }));
}

/** extractHtml from another checkout (the A/B rows), loaded in the stage's worker. */
async function treeExtractHtml(tree: string): Promise<typeof extractHtml> {
  const mod = (await import(pathToFileURL(path.join(tree, 'core', 'extract', 'html-links.ts')).href)) as { extractHtml: typeof extractHtml };
  return mod.extractHtml;
}

function runStage(stage: Stage, pages: Page[], passes: number, extract: typeof extractHtml = extractHtml): { ms: number; cpuMs: number; firstCpuMs: number } {
  switch (stage) {
    case 'decode':
      return timePasses(passes, () => pages.forEach((p) => decodePage(p.body)));
    case 'tokenizer': {
      const decoded = pages.map((p) => decodePage(p.body));
      return timePasses(passes, () => decoded.forEach((html) => tokenize(html)));
    }
    case 'run_tokenizer': {
      const decoded = pages.map((p) => decodePage(p.body));
      return timePasses(passes, () => decoded.forEach((html) => tokenize(html, RunTokenizer)));
    }
    case 'extract_html':
      return timePasses(passes, () => pages.forEach((p) => extract(p.body, { baseUrl: p.url, contentType: 'text/html', maxLinks: MAX_LINKS })));
    case 'extract':
      return timePasses(passes, () => pages.forEach((p) => extractDocument(input(p))));
  }
}

function stageInWorker(stage: Stage, dir: string, passes: number, tree?: string): Promise<{ ms: number; cpuMs: number; firstCpuMs: number }> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(import.meta.url), { workerData: { stage, dir, passes, tree } });
    w.once('message', resolve);
    w.once('error', reject);
    w.once('exit', (code) => reject(new Error(`bench stage ${stage} exited with ${code}`)));
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * Median wall and thread-CPU ms of `passes` runs after a warm-up (whose CPU is `firstCpuMs`). CPU
 * time is the steadier figure on a shared machine.
 */
function timePasses(passes: number, fn: () => void): { ms: number; cpuMs: number; firstCpuMs: number } {
  const c0 = process.threadCpuUsage();
  fn(); // warm-up
  const first = process.threadCpuUsage(c0);
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < passes; i++) {
    const c0 = process.threadCpuUsage();
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
    const c = process.threadCpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { ms: median(times), cpuMs: median(cpu), firstCpuMs: (first.user + first.system) / 1000 };
}

async function timePool(pages: Page[], size: number): Promise<{ ms: number; cpuMs: number; mainCpuMs: number; errors: number }> {
  const pool = new ExtractPool(size, { jobTimeoutMs: 60_000 });
  try {
    await Promise.all(Array.from({ length: size }, () => pool.run(input({ url: BASE, body: Buffer.from('<a href=x>x</a>') }))));
    await Promise.all(pages.map((p) => pool.run(input(p)))); // warm-up
    const proc0 = process.cpuUsage();
    const main0 = process.threadCpuUsage();
    const t0 = performance.now();
    const results = await Promise.all(pages.map((p) => pool.run(input(p))));
    const ms = performance.now() - t0;
    const main = process.threadCpuUsage(main0);
    const proc = process.cpuUsage(proc0);
    return {
      ms,
      cpuMs: (proc.user + proc.system) / 1000,
      mainCpuMs: (main.user + main.system) / 1000,
      errors: results.filter((r) => r.error !== undefined).length,
    };
  } finally {
    await pool.close();
  }
}

export async function runExtractBench(opts: ExtractBenchOptions = {}): Promise<Record<string, number>> {
  const dir = opts.dir ?? DOCS;
  const print = opts.print ?? false;
  const passes = opts.passes ?? 3;
  const log = (s: string) => print && console.log(s);
  if (!fs.existsSync(dir)) {
    log(`extract bench: skipped, ${dir} is missing (apt-get install python3-doc)`);
    return {};
  }
  const files = listHtml(dir);
  if (files.length === 0) {
    log(`extract bench: skipped, no .html files under ${dir} (apt-get install python3-doc)`);
    return {};
  }
  const pages = loadPages(dir);
  const bytes = pages.reduce((n, p) => n + p.body.length, 0);
  const mb = bytes / 1e6;
  log(`extract bench: ${pages.length} files, ${mb.toFixed(1)} MB of HTML from ${dir}`);

  const out: Record<string, number> = { files: pages.length, mb };
  const row = (key: string, label: string, t: { ms: number; cpuMs: number }, extra = '') => {
    out[`${key}_ms`] = t.ms;
    out[`${key}_mbps`] = mb / (t.ms / 1000);
    out[`${key}_cpu_ms`] = t.cpuMs;
    out[`${key}_cpu_mbps`] = mb / (t.cpuMs / 1000);
    const f = (ms: number) => `${ms.toFixed(0).padStart(6)} ms ${(mb / (ms / 1000)).toFixed(1).padStart(6)} MB/s`;
    log(`  ${label.padEnd(36)} ${f(t.ms)}   ${f(t.cpuMs)}${extra}`);
  };
  log(`  ${'stage'.padEnd(36)} ${'wall'.padStart(21)}   ${'cpu'.padStart(21)}`);

  const labels: Record<Stage, string> = {
    decode: 'decode (sniff + TextDecoder)',
    tokenizer: 'parse5 Tokenizer, empty handler',
    run_tokenizer: 'RunTokenizer, empty handler',
    extract_html: 'extractHtml (decode + links + text)',
    extract: 'extractDocument (in process)',
  };
  for (const stage of STAGES) row(stage, labels[stage], await stageInWorker(stage, dir, passes));
  const ratio = (key: string) => (out[`${key}_cpu_ms`]! / out.tokenizer_cpu_ms!).toFixed(2);
  log(`  cpu against parse5's Tokenizer with an empty handler: RunTokenizer ${ratio('run_tokenizer')}×, extractHtml ${ratio('extract_html')}×, extractDocument ${ratio('extract')}×`);

  let links = 0;
  let textChars = 0;
  for (const p of pages) {
    const r = extractDocument(input(p));
    links += r.outlinks.length;
    textChars += r.text.length;
  }
  out.links = links;
  out.text_chars = textChars;
  log(`  (${links} outlinks, ${(textChars / 1e6).toFixed(1)} M chars of text)`);

  for (const size of [1, 2]) {
    const r = await timePool(pages, size);
    out[`pool${size}_main_cpu_ms`] = r.mainCpuMs;
    out[`pool${size}_errors`] = r.errors;
    row(`pool${size}`, `ExtractPool.run, ${size} worker${size > 1 ? 's' : ''}`, r, `  (main thread cpu ${r.mainCpuMs.toFixed(0)} ms${r.errors ? `, ${r.errors} errors` : ''})`);
  }
  return out;
}

/**
 * extractHtml of `baseline` against this tree's, alternated in fresh workers: medians of the
 * rounds' warm medians, and of their first (cold) passes.
 */
export async function runExtractAb(baseline: string, rounds: number, dir = DOCS): Promise<Record<string, number>> {
  const before: { cpuMs: number; firstCpuMs: number }[] = [];
  const after: { cpuMs: number; firstCpuMs: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const side of order) {
      const t = await stageInWorker('extract_html', dir, 3, side === 'before' ? path.resolve(baseline) : undefined);
      (side === 'before' ? before : after).push(t);
      console.log(`  round ${r + 1}, ${side.padEnd(6)} extractHtml: warm ${t.cpuMs.toFixed(0)} ms cpu, first pass ${t.firstCpuMs.toFixed(0)} ms cpu (load ${os.loadavg()[0]!.toFixed(2)})`);
    }
  }
  // Rounds of parse5's loop (its state functions) per pass, each tree's extractHtml once: the work
  // RunTokenizer takes off parse5. Counted by wrapping Tokenizer.prototype._callState, which both
  // trees' tokenizers inherit from the one parse5 they load.
  const proto = Tokenizer.prototype as unknown as { _callState(this: unknown, cp: number): void };
  const callState = proto._callState;
  let calls = 0;
  proto._callState = function (this: unknown, cp: number) {
    calls++;
    callState.call(this, cp);
  };
  const pages = loadPages(dir);
  const countCalls = (extract: typeof extractHtml): number => {
    calls = 0;
    for (const p of pages) extract(p.body, { baseUrl: p.url, contentType: 'text/html', maxLinks: MAX_LINKS });
    return calls;
  };
  const callsBefore = countCalls(await treeExtractHtml(path.resolve(baseline)));
  const callsAfter = countCalls(extractHtml);
  proto._callState = callState;
  console.log(`  parse5 state-function calls per pass: ${(callsBefore / 1e6).toFixed(2)} M before, ${(callsAfter / 1e6).toFixed(2)} M after`);

  const m = (xs: { cpuMs: number; firstCpuMs: number }[], k: 'cpuMs' | 'firstCpuMs') => median(xs.map((x) => x[k]));
  const out = { state_calls_before: callsBefore, state_calls_after: callsAfter, before_cpu_ms: m(before, 'cpuMs'), after_cpu_ms: m(after, 'cpuMs'), before_first_cpu_ms: m(before, 'firstCpuMs'), after_first_cpu_ms: m(after, 'firstCpuMs') };
  console.log(
    `extractHtml A/B over ${rounds} rounds (medians): warm ${out.before_cpu_ms.toFixed(0)} → ${out.after_cpu_ms.toFixed(0)} ms cpu (×${(out.after_cpu_ms / out.before_cpu_ms).toFixed(3)}), ` +
      `first pass ${out.before_first_cpu_ms.toFixed(0)} → ${out.after_first_cpu_ms.toFixed(0)} ms cpu (×${(out.after_first_cpu_ms / out.before_first_cpu_ms).toFixed(3)})`,
  );
  return out;
}

if (!isMainThread && (workerData as { stage?: Stage } | null)?.stage !== undefined) {
  const { stage, dir, passes, tree } = workerData as { stage: Stage; dir: string; passes: number; tree?: string };
  parentPort!.postMessage(runStage(stage, loadPages(dir), passes, tree === undefined ? extractHtml : await treeExtractHtml(tree)));
} else if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const dirArg = process.argv.slice(2).find((a) => !a.startsWith('--'));
  const baseline = flag('baseline');
  if (baseline !== undefined) await runExtractAb(baseline, Math.max(1, Number(flag('rounds') ?? 3)), dirArg ?? DOCS);
  else await runExtractBench({ dir: dirArg, print: true });
}
