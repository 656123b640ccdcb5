/**
 * `npm run bench`: every benchmark, each in its own process (so peak-RSS figures are each
 * bench's own), one after another. Results are printed as ratios against a reference measured
 * in the same run. `npm run bench -- crawl index` runs only those; any other arguments (flags such
 * as `npm run bench -- pg --uris 1000000`) go to each bench run.
 *
 * Some need Debian packages: nginx, python3-doc and wget (the crawl and index benches use the
 * Python docs served by nginx); they say so and skip when missing.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BENCHES: [string, string, string][] = [
  ['crawl', 'crawl-bench.ts', 'crawl engine vs wget on the Python docs: time, CPU, peak RSS, coverage (issues 2, 20); --profile, --runs=N'],
  ['crawl100k', 'crawl100k-bench.ts', '100,000-page synthetic site on nginx: URIs/s per 10%, RSS at 10k/100k pages, bytes per URI (issue 20)'],
  ['perf-thread', 'perf-crawl-thread.ts', "the synthetic crawl's crawl thread sampled on the CPU by Linux perf (kernel included): share by library and by JavaScript module (issue 20; needs perf)"],
  ['record-cpu', 'record-cpu-bench.ts', "the crawl thread's per-record gzip members and digests, as written before and after issue 20's cuts, in one run: CPU per call, compressed bytes"],
  ['url-once', 'url-once-bench.ts', "the crawl thread's URL work per claimed URI (WHATWG parses, SURT keys) as it was and with one parse per URI, in one run: CPU per URI (issue 20)"],
  ['group-commit', 'group-commit-bench.ts', "the crawl thread's database work per URI with and without group commit: CPU and bytes written (issue 20)"],
  ['queue-policy', 'queue-policy-bench.ts', 'host vs elfhash:8 queues on 20 ms sites of several URL shapes (issues 3, 21)'],
  ['frontier', 'frontier-bench.ts', '1M-URI frontier: enqueue, claim, resume, RSS (issue 4)'],
  ['page-limit', 'page-limit-bench.ts', 'claims with pages held back by a page limit vs normal claims (issue 14)'],
  ['index', 'index-bench.ts', 'trove index vs warcio cdx-index vs inflate (issue 5)'],
  ['sql-bind', 'sql-bind-bench.ts', 'statements with parameters SQLite compiles against, as they are and with a plain `?`; the records insert with and without RETURNING (issue 20)'],
  ['replay', 'replay-bench.ts', 'replay lookups over 1M captures, import RSS (issue 5)'],
  ['replay-info', 'replay-info-bench.ts', "the replay banner's info from record heads vs a whole replay (issue 19)"],
  ['export', 'export-bench.ts', 'WACZ export vs a plain copy (issue 6)'],
  ['check-wacz', 'check-wacz-bench.ts', 'trove check on a WACZ vs on the WARC inside it (issue 12)'],
  ['reliability', 'reliability-bench.ts', 'hostile site crawl: time, RSS, outcomes, validity (issue 8)'],
  ['extract', 'extract-bench.ts', 'HTML extraction throughput'],
  ['log-tail', 'log-tail-bench.ts', "the Monitor's crawl.log view on a 100 MB log vs tail (issue 16)"],
  ['traps', 'trap-bench.ts', 'trap detector precision and recall on fixture sites and the Python docs (issue 14)'],
  ['pg', 'pg-frontier-bench.ts', 'PostgreSQL frontier vs SQLite, 1/2/4 workers (issue 18)'],
  ['browser', 'browser-bench.ts', 'browser crawl: coverage of what pages request live and pages/s with 1/2/4 tabs, beside HTTP-only (issue 17)'],
  ['pg-crawl', 'pg-crawl-bench.ts', '20-host crawl with 1/2/4 workers on PostgreSQL vs one SQLite crawl (issue 18)'],
  ['pg-5000', 'pg-5000-bench.ts', 'three workers, 5,000 pages on 20 hosts, one killed: the shared crawl\'s done-when conditions (issue 18)'],
  ['request-gate', 'request-gate-bench.ts', "the recorder's request gate (robots.txt before a browser request is sent) vs no gate, one page of many images (issue 17)"],
];

// Names pick benches; every other argument goes to each bench picked (`npm run bench -- crawl --profile`, `npm run bench -- pg --uris 1000000`).
const names = new Set(BENCHES.map(([name]) => name));
const wanted = process.argv.slice(2).filter((a) => names.has(a));
const passed = process.argv.slice(2).filter((a) => !names.has(a));
let failed = 0;
// Runs for many minutes (over an hour on a busy 2-core machine), or needs perf: only when asked for by name.
const NAMED_ONLY = new Set(['crawl100k', 'perf-thread']);
for (const [name, file, what] of BENCHES) {
  if (wanted.length > 0 ? !wanted.includes(name) : NAMED_ONLY.has(name)) continue;
  console.log(`\n=== ${name}: ${what}`);
  const r = spawnSync(process.execPath, [path.join(here, file), ...passed], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`=== ${name} exited ${r.status ?? r.signal}`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
