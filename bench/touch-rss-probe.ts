/**
 * What one touch costs in resident memory (issue 20): a fresh Node process with the CLI's flags
 * and environment (bench/cli-node-flags.ts) does one thing — an Intl call, a module import — and
 * then reads /proc/self/smaps_rollup. RSS counts the pages of the node binary a call faults in
 * (ICU's data and code live in the binary) as well as what it allocates, so the figure is split
 * into file-backed and anonymous bytes. Each variant runs `--runs` times (default 3); the median
 * is shown, against the bare process measured in the same run.
 *
 *   node bench/touch-rss-probe.ts [--runs=3] [--only=substring]
 *
 * Importing TypeScript runs with the compile cache on (as bin/trove.js does) and after a warm-up
 * run, so a figure is the module's, not the type stripper's.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliNodeEnv, cliNodeFlags } from './cli-node-flags.ts';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const runs = Number(args.runs ?? 3);

/** name → code run as an ES module in the child (root-relative imports). */
const variants: [string, string][] = [
  ['bare node', ''],
  ["(12345).toLocaleString('en')", "(12345).toLocaleString('en')"],
  ["(12345).toLocaleString('en-US')", "(12345).toLocaleString('en-US')"],
  ['new Intl.NumberFormat(en).format', "new Intl.NumberFormat('en').format(12345)"],
  ['new Intl.DateTimeFormat(en).format', "new Intl.DateTimeFormat('en').format(new Date(0))"],
  ['new Date().toISOString()', 'new Date(0).toISOString()'],
  ['new Date().toString()', 'String(new Date(0))'],
  ["'a'.localeCompare('b')", "'a'.localeCompare('b')"],
  ["new Intl.Segmenter('en')", "[...new Intl.Segmenter('en').segment('ab')]"],
  ["new TextDecoder('utf-8').decode", "new TextDecoder('utf-8').decode(new Uint8Array([97]))"],
  ["new TextDecoder('windows-1252').decode", "new TextDecoder('windows-1252').decode(new Uint8Array([0xe9]))"],
  ["new TextDecoder('shift_jis').decode", "new TextDecoder('shift_jis').decode(new Uint8Array([0x82, 0xa0]))"],
  ["'É'.toLowerCase()", "'ÉA'.toLowerCase()"],
  ["'a'.normalize('NFC')", "'é'.normalize('NFC')"],
  ['/\\p{L}/u.test', "/\\p{L}/u.test('é')"],
  ['new URL(idn)', "new URL('http://bücher.example/').host"],
  ["import 'node:http' (ESM)", "await import('node:http')"],
  ["process.getBuiltinModule('node:http')", "process.getBuiltinModule('node:http').STATUS_CODES"],
  ["import 'node:crypto' (ESM)", "await import('node:crypto')"],
  ["import 'node:stream' (ESM)", "await import('node:stream')"],
  ["import 'node:zlib' (ESM)", "await import('node:zlib')"],
  ["import 'node:worker_threads' (ESM)", "await import('node:worker_threads')"],
  ["import 'node:net', 'node:tls' (ESM)", "await import('node:net'); await import('node:tls')"],
  ["import 'node:util', 'node:readline' (ESM)", "await import('node:util'); await import('node:readline')"],
  ['import commander', "await import('commander')"],
  ['import yaml', "await import('yaml')"],
  ['import cli-progress', "await import('cli-progress')"],
  ['import cli-progress + bar on a stream', "const p = (await import('cli-progress')).default; const fs = await import('node:fs'); const b = new p.SingleBar({ stream: fs.createWriteStream('/dev/null'), noTTYOutput: true }, p.Presets.shades_classic); b.start(10, 1); b.update(2); b.stop()"],
  ['import parse5', "await import('parse5')"],
  ['import undici', "await import('undici')"],
  ['import better-sqlite3 + open :memory:', "const D = (await import('better-sqlite3')).default; new D(':memory:').prepare('select 1').get()"],
  ['import yauzl', "await import('yauzl')"],
  ['extract-document.ts (HTML, CSS, sitemap, headers)', "await import('./core/extract/extract-document.ts')"],
  ['header-links.ts, sitemap.ts, css-links.ts only', "await import('./core/extract/header-links.ts'); await import('./core/extract/sitemap.ts'); await import('./core/extract/css-links.ts')"],
  ['import core/crawl/start-crawl.ts', "await import('./core/crawl/start-crawl.ts')"],
  ['start-crawl.ts + commander', "await import('./core/crawl/start-crawl.ts'); await import('commander')"],
  ['  + yaml', "await import('./core/crawl/start-crawl.ts'); await import('commander'); await import('yaml')"],
  ['  + cli-progress', "await import('./core/crawl/start-crawl.ts'); await import('commander'); await import('cli-progress')"],
  ['  + core/export (cdxj, mirror, report, wacz, warc subset)', "await import('./core/crawl/start-crawl.ts'); await import('commander'); await import('./core/export/export-cdxj.ts'); await import('./core/export/export-mirror.ts'); await import('./core/export/export-report.ts'); await import('./core/export/export-wacz.ts'); await import('./core/export/export-warc-subset.ts')"],
  ['  + core/replay, record-query', "await import('./core/crawl/start-crawl.ts'); await import('commander'); await import('./core/replay/replay.ts'); await import('./core/archive/record-query.ts')"],
  ['  + wacz/warc check', "await import('./core/crawl/start-crawl.ts'); await import('commander'); await import('./core/archive/wacz-check.ts'); await import('./core/warc/check-warc.ts')"],
  ['  + import-warc', "await import('./core/crawl/start-crawl.ts'); await import('commander'); await import('./core/archive/import-warc.ts')"],
  ['  + cdxj-index, external-sort', "await import('./core/crawl/start-crawl.ts'); await import('commander'); await import('./core/archive/cdxj-index.ts'); await import('./core/export/external-sort.ts')"],
  ['  + postgres-frontier (no pg)', "await import('./core/crawl/start-crawl.ts'); await import('commander'); await import('./core/frontier/postgres-frontier.ts'); await import('./core/frontier/postgres-crawl-view.ts')"],
  ['import core/cli/main.ts', "await import('./core/cli/main.ts')"],
  ['main.ts + buildProgram() (every command)', "await (await import('./core/cli/main.ts')).buildProgram()"],
];

interface Rollup {
  rss: number;
  anon: number;
  file: number;
}

function once(code: string): Rollup {
  const script = `
    import { enableCompileCache } from './bin/compile-cache.js';
    import fs from 'node:fs';
    enableCompileCache();
    { ${code}; }
    const t = fs.readFileSync('/proc/self/smaps_rollup', 'utf8');
    const kb = (k) => Number(new RegExp('^' + k + ':\\\\s+(\\\\d+) kB', 'm').exec(t)[1]);
    process.stdout.write(JSON.stringify({ rss: kb('Rss'), anon: kb('Anonymous'), file: kb('Rss') - kb('Anonymous') }));
  `;
  const r = spawnSync(process.execPath, [...cliNodeFlags(), '--input-type=module', '-e', script], { cwd: root, env: cliNodeEnv(), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Rollup;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mib = (kb: number) => (kb / 1024).toFixed(1);
const signed = (kb: number) => `${kb >= 0 ? '+' : ''}${mib(kb)}`;

const chosen = variants.filter(([name], i) => i === 0 || !args.only || name.includes(args.only));
for (const [, code] of chosen) once(code); // warm the compile cache
let bare: Rollup | undefined;
console.log(`| touch | RSS | file-backed | anonymous | Δ RSS | Δ file | Δ anon |`);
console.log(`|---|---:|---:|---:|---:|---:|---:|`);
for (const [name, code] of chosen) {
  const rs = Array.from({ length: runs }, () => once(code));
  const m: Rollup = { rss: median(rs.map((r) => r.rss)), anon: median(rs.map((r) => r.anon)), file: median(rs.map((r) => r.file)) };
  bare ??= m;
  console.log(`| ${name} | ${mib(m.rss)} | ${mib(m.file)} | ${mib(m.anon)} | ${signed(m.rss - bare.rss)} | ${signed(m.file - bare.file)} | ${signed(m.anon - bare.anon)} |`);
}
