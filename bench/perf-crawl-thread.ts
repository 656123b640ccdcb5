/**
 * Where the crawl thread's CPU goes, on the CPU: Linux `perf` samples the synthetic-site crawl
 * (crawl100k-bench.ts) by the clock each thread spends on a core, kernel included, and this
 * prints the crawl thread's samples two ways: by the library the sampled instruction is in
 * (V8, SQLite, zlib, libc, the kernel, JIT-compiled JavaScript) and by the innermost JavaScript
 * function's module on the call stack (a Trove file, a package, a Node internal), so a native
 * call (a SQLite statement, a gzip, a socket write) counts for the module that made it.
 *
 * Why perf and not `node --cpu-prof` (cpu-profile-table.ts): V8's sampler runs on wall-clock
 * time, so on this shared 2-core machine a thread waiting for a core, or in a system call, is
 * charged to wherever it stopped; and it cannot see kernel time (a loopback socket write does the
 * receiver's TCP work on the sender's thread). perf's cpu-clock event samples on-CPU time only.
 * `--perf-prof` makes Node write a jitdump (jit-<pid>.dump: each compiled function's code, address
 * and time), and `perf inject --jit` turns it into symbol files that perf reads by time, so a
 * sample is named after the function at that address when it was taken. (The older
 * `--perf-basic-prof` map has no times and never retires a collected function's range: a later
 * function compiled at the same address was named after the earlier one, e.g. a synchronous gzip
 * charged to the trap detector's `segmentsOf`.) perf must then record with `-k mono`, the
 * jitdump's clock.
 *
 * `--docs`: instead, one crawl of Debian's Python docs on loopback nginx (8 connections, as in
 * crawl-bench.ts and crawl-ab-bench.ts: their nginx helper and crawl child, the CLI's flags and
 * environment), where pages are large (50 MB of HTML, ~40 links a page) and the crawl thread's
 * CPU per URI is several times the synthetic site's. `--connections=1` crawls with one.
 * Also: the innermost JavaScript function (name and module), and the function the sampled
 * instruction is in (any code: the one table no stack walk can get wrong).
 *
 * Read the JavaScript tables as approximate: perf walks stacks by frame pointers, which
 * better-sqlite3's SQLite does not keep (its samples are set apart), and a function V8 inlined
 * is charged to the one it was inlined into. Where the instruction is, by library and by
 * function, is exact.
 *
 * `--tree=DIR` (with `--docs`): crawl with another checkout's code (its crawl child and CLI
 * flags), e.g. the commit before a change. `--from=FILE`: tabulate a perf.data kept by `--keep` again instead of crawling.
 *
 * Run: node bench/perf-crawl-thread.ts [--levels=3|4 | --docs [--connections=1|8] [--tree=DIR]] [--top=N]
 *      [--keep | --from=FILE]   (keeps perf.data for `perf script` / `perf report`; needs perf; Debian: linux-perf)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nginxAvailable, startNginx } from './bench-nginx.ts';
import { cliNodeEnv, cliNodeFlags } from './cli-node-flags.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name: string, dflt: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const levels = arg('levels', '4');
const top = Number(arg('top', '30'));
const docs = process.argv.includes('--docs');
const connections = Number(arg('connections', '8'));
if (!['3', '4'].includes(levels)) throw new Error('--levels is 3 or 4 here (5 is the full site: use crawl100k-bench.ts)');
if (![1, 8].includes(connections)) throw new Error('--connections is 1 or 8');
const keep = process.argv.includes('--keep');
const NO_JS = '(no JavaScript frame: event loop, GC, kernel work on arrival)';
const SQLITE = '(in SQLite: caller not known, see the comment above)';
const DOCS = '/usr/share/doc/python3-doc/html';
if (docs && (!nginxAvailable() || !fs.existsSync(DOCS))) {
  console.log('perf-crawl-thread --docs skipped: needs Debian packages nginx and python3-doc');
  process.exit(0);
}

const from = process.argv.find((a) => a.startsWith('--from='))?.slice('--from='.length);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-perf-'));
const recorded = path.join(work, 'perf.data');
// perf inject --jit writes one symbol file per compiled function beside the jitdump (in `work`).
const data = from ?? path.join(work, 'perf.jit.data');
const nginx = docs && !from ? await startNginx(fs.realpathSync(DOCS)) : null;
try {
  const perfArgs = ['record', '-k', 'mono', '-e', 'cpu-clock', '-F', '499', '-g', '-o', recorded, '--'];
  const withPerfMap = (env: NodeJS.ProcessEnv) => ({ ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --perf-prof`.trim() });
  let rec;
  if (from) {
    // Tabulate only.
  } else if (nginx) {
    // The Python docs crawl as crawl-ab-bench.ts runs it: its crawl child, the CLI's flags.
    const seed = `${nginx.origin}/`;
    const settings = { seeds: [seed], perHost: connections, concurrency: connections, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, name: 'bench' };
    const tree = path.resolve(arg('tree', path.join(here, '..')));
    const child = (dir: string, extra: object = {}) => [...cliNodeFlags(tree), path.join(tree, 'bench', 'crawl-child.js'), dir, JSON.stringify({ ...settings, ...extra })];
    // Warm nginx, the page cache and the compile cache first, unsampled.
    spawnSync('wget', ['-q', '-r', '-l', 'inf', '--no-parent', '-p', '--delete-after', '-P', path.join(work, 'warm'), seed]);
    spawnSync(process.execPath, child(path.join(work, 'warm-crawl'), { maxHops: 1 }), { env: cliNodeEnv(tree), stdio: 'ignore' });
    const load = os.loadavg()[0]!;
    rec = spawnSync('perf', [...perfArgs, process.execPath, ...child(path.join(work, 'crawl'))], { env: withPerfMap(cliNodeEnv(tree)), cwd: work, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
    if (rec.error || rec.status !== 0) throw new Error(`perf record failed (is perf installed?): ${rec.error?.message ?? rec.stderr}`);
    const j = JSON.parse(rec.stdout.trim().split('\n').pop()!) as { ms: number; cpuMs: number; threads: Record<string, number>; downloaded: number };
    const alive = Object.values(j.threads).reduce((a, b) => a + b, 0);
    const perUri = (ms: number) => `${ms.toFixed(0)} ms (${(ms / j.downloaded).toFixed(2)} ms/URI)`;
    console.log(`docs: ${tree}: Python docs, ${connections} connection(s), ${j.downloaded} URIs in ${(j.ms / 1000).toFixed(2)} s under perf; 1-min load ${load.toFixed(2)} → ${os.loadavg()[0]!.toFixed(2)}`);
    console.log(`CPU by thread: all ${perUri(j.cpuMs)}, crawl thread ${perUri(j.threads.MainThread ?? 0)}, extraction worker ${perUri(j.cpuMs - alive)}, V8 helpers ${perUri(j.threads.V8Worker ?? 0)}, libuv pool ${perUri(j.threads['libuv-worker'] ?? 0)}`);
  } else {
    rec = spawnSync('perf', [...perfArgs, process.execPath, path.join(here, 'crawl100k-bench.ts'), `--levels=${levels}`], {
      env: withPerfMap(process.env),
      cwd: work, // where Node writes its jitdumps
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      maxBuffer: 64 * 2 ** 20,
    });
    if (rec.error || rec.status !== 0) throw new Error(`perf record failed (is perf installed?): ${rec.error?.message ?? rec.stderr}`);
    const summary = rec.stdout.split('\n').filter((l) => /^crawl100k:|overall|by thread/.test(l.trim()));
    console.log(summary.join('\n'));
  }

  if (!from) {
    const inject = spawnSync('perf', ['inject', '--jit', '-i', recorded, '-o', data], { cwd: work, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
    if (inject.status !== 0) throw new Error(`perf inject --jit failed: ${inject.stderr}`);
  }

  // One block per sample: a header line (pid/tid comm), then the call chain, innermost first.
  const script = spawnSync('perf', ['script', '-i', data, '-F', 'pid,tid,comm,ip,sym,dso'], { encoding: 'utf8', maxBuffer: 2 ** 30 });
  if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr}`);
  const samples = script.stdout.split('\n\n').map((b) => b.split('\n').filter((l) => l.trim() !== ''));
  // The crawl process is the one with an extraction worker thread; its main thread is the crawl thread.
  const crawlPid = samples.find((s) => /\btrove-extract\b/.test(s[0] ?? ''))?.[0]?.trim().split(/[\s/]+/)[1];
  if (!crawlPid) throw new Error('no sample of the crawl process (no trove-extract thread seen)');
  const mine = samples.filter((s) => {
    const head = (s[0] ?? '').trim().split(/[\s/]+/);
    return head[1] === crawlPid && head[2] === crawlPid;
  });

  const byLib = new Map<string, number>();
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const bySymbol = new Map<string, number>();
  for (const s of mine) {
    const frames = s.slice(1);
    const lib = libraryOf(frames[0] ?? '');
    add(byLib, lib);
    add(bySymbol, symbolOf(frames[0] ?? ''));
    // better-sqlite3's prebuilt SQLite keeps no frame pointers, so perf's walk up from an
    // instruction in it lands on whatever return address the stack happens to hold: a sample
    // there is not charged to a JavaScript caller it may not have.
    add(byModule, lib.startsWith('SQLite') ? SQLITE : moduleOf(frames));
    add(byFunction, lib.startsWith('SQLite') ? SQLITE : functionOf(frames));
  }
  const table = (title: string, m: Map<string, number>) => {
    console.log(`\n| ${title} | share of the crawl thread |\n|---|---:|`);
    for (const [k, n] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`| ${k} | ${((100 * n) / mine.length).toFixed(1)}% |`);
  };
  console.log(`\nperf: ${mine.length} on-CPU samples of the crawl thread (pid ${crawlPid}) at 499 Hz`);
  table('where the instruction is', byLib);
  table('innermost JavaScript module on the stack', byModule);
  table('innermost JavaScript function on the stack', byFunction);
  table('the sampled instruction’s function (any code)', bySymbol);
} finally {
  await nginx?.close();
  if (keep) console.log(`\nperf data kept: ${data}`);
  else fs.rmSync(work, { recursive: true, force: true });
}

/** The library of a sampled instruction (`ip sym (dso)`), with Node's statically linked parts told apart. */
function libraryOf(frame: string): string {
  const dso = /\(([^()]*)\)\s*$/.exec(frame)?.[1] ?? '';
  const sym = frame.trim().split(/\s+/).slice(1, -1).join(' ');
  if (dso.includes('kallsyms')) return 'kernel';
  if (dso.includes('/better-sqlite3/')) return 'SQLite (better-sqlite3)';
  // perf inject's symbol files hold V8's builtins copied out of the binary too, and regexp code.
  if (/jitted-\d+-\d+\.so$/.test(dso)) return sym.startsWith('Builtin:') ? 'V8: builtins' : 'JavaScript (JIT-compiled)';
  if (dso.includes('libc.so')) return /mem(cpy|move|set|cmp)/.test(sym) ? 'libc: memcpy/memset' : /malloc|free|_int_|realloc|calloc/.test(sym) ? 'libc: malloc' : 'libc: other';
  if (/deflate|build_tree|pqdownheap|compress_block|send_tree|longest_match|crc32|adler|inflate|fill_window|_tr_|scan_tree|gen_bitlen|gen_codes|slide_hash|flush_pending/.test(sym)) return 'zlib';
  if (/Scavenge|MarkCompact|Marking|Sweep|Heap::|Evacuat|RememberedSet|Minor|ConcurrentMarking|PagedSpace|Worklist|BodyDescriptor|Visitor/.test(sym)) return 'V8: garbage collector';
  if (sym.startsWith('Builtins_')) return 'V8: builtins';
  if (/v8::|Isolate/.test(sym)) return 'V8: other';
  if (/node::|uv_|napi_/.test(sym)) return 'Node / libuv';
  if (/SSL|EVP|sha1|SHA1|sha256|SHA256|ossl|OPENSSL/i.test(sym)) return 'OpenSSL (digests)';
  return `other (${path.basename(dso)})`;
}

/** The function a sample's instruction is in, with its file's base name (`sym (dso)`). */
function symbolOf(frame: string): string {
  const dso = /\(([^()]*)\)\s*$/.exec(frame)?.[1] ?? '';
  const sym = frame.trim().split(/\s+/).slice(1, -1).join(' ');
  return `${sym.slice(0, 90)} (${/jitted-\d+-\d+\.so$/.test(dso) ? 'JIT code' : path.basename(dso)})`;
}

/** The innermost JavaScript frame's module: a Trove file, `npm:<package>`, or a Node internal. */
function moduleOf(frames: string[]): string {
  return innermostJs(frames)?.module ?? NO_JS;
}

/** The innermost JavaScript frame's function, with its module. */
function functionOf(frames: string[]): string {
  const js = innermostJs(frames);
  return js ? `${js.name} (${js.module})` : NO_JS;
}

function innermostJs(frames: string[]): { module: string; name: string } | null {
  for (const f of frames) {
    const at = f.indexOf('JS:');
    if (at < 0) continue;
    const m = /((?:file:\/\/)?\/\S+?\.(?:ts|js|mjs|cjs)|node:[\w/]+)(?::\d+(?::\d+)?)?/.exec(f);
    if (!m) continue;
    // `JS:*name file:line:col` (`*` optimized, `~` interpreted); an anonymous function has no name.
    const name = f.slice(at + 3, m.index).replace(/^[*~^+'-]/, '').trim() || '(anonymous)';
    const src = m[1]!.replace(/^file:\/\//, '');
    if (src.startsWith('node:')) return { module: src, name };
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(src);
    if (pkg) return { module: `npm:${pkg[1]}`, name };
    const inRepo = src.indexOf('/core/');
    return { module: inRepo >= 0 ? src.slice(inRepo + 1) : path.basename(src), name };
  }
  return null;
}
