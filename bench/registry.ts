/**
 * Every script in bench/ and what it is: the benches `npm run bench -- NAME` runs (bench/run.ts),
 * the tools that read a bench's output, and the helpers (bench children, preloads, shared
 * modules) that are not benches themselves. One list, so `npm run bench -- --help` names every
 * bench and test/bench/bench-registry.test.ts can check that no script in bench/ is left out.
 */

export interface Bench {
  name: string;
  file: string;
  /** One line: what it measures (or, for a tool, what it reads). */
  what: string;
  /**
   * Not part of plain `npm run bench`: runs only when named. Long runs, benches that need an
   * argument (a baseline checkout, a kept crawl) or a tool such as Linux perf.
   */
  namedOnly?: boolean;
}

export interface Helper {
  file: string;
  role: 'child' | 'preload' | 'module';
  what: string;
  /** Bench or tool names whose script names this file (the check reads their source for it). */
  usedBy: string[];
}

/** `npm run bench` with no names runs these, in this order, less the `namedOnly` ones. */
export const BENCHES: Bench[] = [
  { name: 'crawl', file: 'crawl-bench.ts', what: 'trove crawl vs wget on the Python docs, whole processes under /usr/bin/time -v: CPU, wall, max RSS, coverage; --runs=N, --in-process, --profile' },
  { name: 'small-pages', file: 'small-pages-bench.ts', what: 'trove crawl vs wget on small, link-heavy pages (PostgreSQL docs, a generated 4 KB site), whole processes: CPU per URI, wall, peak RSS, CPU per URI by phase; --runs=N, --no-profile' },
  { name: 'crawl100k', file: 'crawl100k-bench.ts', what: '111,111-page synthetic site on nginx: URIs/s per tenth, RSS at 10k/100k pages, peak RSS, WARC and database bytes per URI; --levels=3|4 for a quick run', namedOnly: true },
  { name: 'perf-thread', file: 'perf-crawl-thread.ts', what: "the synthetic (or --docs) crawl's crawl thread sampled on the CPU by Linux perf: share by library and by JavaScript module (needs perf)", namedOnly: true },
  { name: 'record-cpu', file: 'record-cpu-bench.ts', what: "per-record gzip members and digests, the crawl thread's way before and now, same run: CPU per call, compressed bytes" },
  { name: 'url-once', file: 'url-once-bench.ts', what: 'URL work per claimed URI (WHATWG parses, SURT keys), five parses vs one, same run: CPU per URI' },
  { name: 'group-commit', file: 'group-commit-bench.ts', what: "the crawl thread's database work per URI with and without group commit: CPU, wall and bytes written per URI" },
  { name: 'queue-policy', file: 'queue-policy-bench.ts', what: 'host vs elfhash:8 queues on 20 ms sites of several URL shapes: crawl time' },
  { name: 'frontier', file: 'frontier-bench.ts', what: '1M-URI SQLite frontier: enqueue, claim, resume, RSS' },
  { name: 'page-limit', file: 'page-limit-bench.ts', what: 'claims with pages held back by a page limit vs normal claims; a --limit-pages crawl of the docs replayed' },
  { name: 'index', file: 'index-bench.ts', what: 'trove index vs warcio cdx-index (whole processes; CPU and max RSS under GNU time) vs a plain inflate of the same WARC' },
  { name: 'sql-bind', file: 'sql-bind-bench.ts', what: 'statements prepared with `+?` vs a plain `?`, and the records insert with and without RETURNING: µs per call' },
  { name: 'replay', file: 'replay-bench.ts', what: 'replay lookups over 1M captures; RSS of an import' },
  { name: 'replay-info', file: 'replay-info-bench.ts', what: "the replay banner's info from record heads vs a whole replay" },
  { name: 'export', file: 'export-bench.ts', what: 'WACZ export vs a plain copy of the WARCs' },
  { name: 'big-archive', file: 'big-archive-bench.ts', what: 'synthetic WARCs of --size MB: import, check, CDXJ and WACZ export, WACZ check, wall and peak RSS vs gunzip/cp; replay lookup, search, Pages view' },
  { name: 'check-wacz', file: 'check-wacz-bench.ts', what: 'trove check on a WACZ vs on the WARC inside it' },
  { name: 'reliability', file: 'reliability-bench.ts', what: 'hostile-site crawl: time, crawler peak RSS, one outcome per path, WARC validity' },
  { name: 'extract', file: 'extract-bench.ts', what: 'HTML link extraction throughput (MB/s)' },
  { name: 'log-tail', file: 'log-tail-bench.ts', what: "the Monitor's crawl.log view on a 100 MB log vs tail -n and a plain read" },
  { name: 'traps', file: 'trap-bench.ts', what: 'trap detector precision and recall on fixture sites and the Python docs' },
  { name: 'pg', file: 'pg-frontier-bench.ts', what: 'PostgreSQL frontier vs SQLite: bulk load, claim + complete per second (--uris N)' },
  { name: 'browser', file: 'browser-bench.ts', what: 'capture modes HTTP-only, auto and browser side by side: phase timings, coverage of what pages request live, pages rendered, pages/s, CPU per page, PSS' },
  { name: 'qa', file: 'qa-bench.ts', what: 'trove qa pages/s on the Python docs with 1/2/4 tabs, beside the pages/s of the crawl that made the archive (--pages=N, --tabs=1,2,4)' },
  { name: 'pg-crawl', file: 'pg-crawl-bench.ts', what: '20-host crawl with 1/2/4 workers on PostgreSQL vs one SQLite crawl' },
  { name: 'pg-200k', file: 'pg-200k-bench.ts', what: 'four workers, 200,000 pages on 20 hosts, two killed and restarted: every page once, pages/s per tenth' },
  { name: 'pg-5000', file: 'pg-5000-bench.ts', what: "three workers, 5,000 pages on 20 hosts, one killed: the shared crawl's done-when conditions" },
  { name: 'login', file: 'login-bench.ts', what: 'issue 36: the login fixture crawled HTTP-only without a login and with a profile: member pages and resources archived, log-out URLs requested (0), pages/s (--pages=N)' },
  { name: 'request-gate', file: 'request-gate-bench.ts', what: "the browser recorder's robots.txt request gate vs no gate, one page of 200 images: wall and CPU" },
  { name: 'crawl-ab', file: 'crawl-ab-bench.ts', what: 'the docs crawl by wget, a baseline checkout and this one, alternated: CPU by thread, peak RSS, after/before (--baseline=DIR)', namedOnly: true },
  { name: 'cli-rss', file: 'cli-crawl-rss-bench.ts', what: "peak RSS of the docs crawl as the CLI runs it: RSS at exit by kind, the breakdown at the peak, the node binary's pages (--baseline, --variant)", namedOnly: true },
  { name: 'body-buffers', file: 'body-buffers-bench.ts', what: "ArrayBuffer memory of the docs crawl sampled every 20 ms, a baseline checkout vs this one (--baseline=DIR)", namedOnly: true },
  { name: 'candidate-chain', file: 'candidate-chain-bench.ts', what: 'CPU per page of outlinks through the candidate chain, two link shapes, decisions remembered or not (--baseline=DIR)', namedOnly: true },
  { name: 'js-hot', file: 'js-hot-bench.ts', what: "the crawl thread's hot JavaScript (trap detector, text fingerprint, WARC headers), a base revision vs this tree: µs per URI (--base=REV)", namedOnly: true },
  { name: 'records-reader', file: 'records-reader-bench.ts', what: 'the readers of every record (records browser, subsets, CDXJ rows, lookups) on a kept crawl, vs a baseline tree: ms per call', namedOnly: true },
  { name: 'touch-rss', file: 'touch-rss-probe.ts', what: 'resident memory one call or import costs a fresh process with the CLI flags (Intl, TextDecoder, modules): file-backed and anonymous', namedOnly: true },
  { name: 'recrawl', file: 'recrawl-bench.ts', what: 'the Python docs on nginx crawled, 5% edited, 1% deleted, 1% added, 20% touched, recrawled: change report exactness, recrawl WARC bytes vs the first crawl (target <= 10%) and by record, 304s, replay identical to live (--section=/howto/)', namedOnly: true },
  { name: 'search', file: 'search-bench.ts', what: 'full-text search over --pages N pages (default 1M) written through the capture index as an import writes them: build time, database size, p50/p99 of 50 hits with snippets for frequent, rare, two-word, phrase, prefix and no-hit queries', namedOnly: true },
  { name: 'fuzz', file: 'fuzz.ts', what: 'long fuzz runs of the WARC, CDXJ and WACZ readers: failures, heap growth, peak RSS (also `npm run fuzz`)', namedOnly: true },
];

/** Scripts that read what a bench wrote; run by name like a bench, never in the default set. */
export const TOOLS: Bench[] = [
  { name: 'profile-table', file: 'cpu-profile-table.ts', what: 'self time by module and function from the .cpuprofile files of `node --cpu-prof` (DIR [top-n])', namedOnly: true },
  { name: 'heap-diff', file: 'heap-snapshot-diff.js', what: 'what grew between two V8 heap snapshots of one process (A B [rows])', namedOnly: true },
];

export const HELPERS: Helper[] = [
  { file: 'cli-node-flags.ts', role: 'module', what: "the CLI shebang's Node flags and environment, for bench children", usedBy: ['crawl', 'small-pages', 'index', 'crawl-ab', 'cli-rss', 'body-buffers', 'perf-thread', 'touch-rss'] },
  { file: 'time-v.ts', role: 'module', what: "a command timed as a whole process by GNU time -v", usedBy: ['crawl', 'small-pages', 'index'] },
  { file: 'bench-nginx.ts', role: 'module', what: "Debian's nginx serving a folder on loopback", usedBy: ['crawl', 'small-pages', 'crawl100k', 'crawl-ab', 'cli-rss', 'body-buffers', 'perf-thread', 'index', 'traps', 'page-limit', 'browser', 'recrawl', 'qa'] },
  { file: 'recrawl-scenario.ts', role: 'module', what: 'issue 38 measured: a docs copy edited, deleted, added and touched between a crawl and its recrawl', usedBy: ['recrawl'] },
  { file: 'synthetic-warc.ts', role: 'module', what: 'a 2,000-page WARC written by Trove', usedBy: ['index', 'check-wacz'] },
  { file: 'big-archive-data.ts', role: 'module', what: 'the URLs, page text words and queries of the synthetic big archive', usedBy: ['big-archive', 'search'] },
  { file: 'big-archive-warc.ts', role: 'child', what: 'one 1 GB WARC of the synthetic big archive, written in a process of its own (several at once)', usedBy: ['big-archive'] },
  { file: 'browser-bench-sampler.js', role: 'child', what: "the peak RSS/PSS and each Chromium process's CPU of a process tree, sampled from /proc in a process of its own", usedBy: ['browser', 'qa'] },
  { file: 'qa-bench-cpu.ts', role: 'module', what: "CPU by process type of trove qa's Chromium, through the sampler", usedBy: ['qa'] },
  { file: 'big-archive-queries.ts', role: 'child', what: 'replay lookups, full-text searches and the Pages view query on a big archive, in a process of its own', usedBy: ['big-archive'] },
  { file: 'thread-cpu.js', role: 'module', what: "CPU by thread name from /proc/self/task", usedBy: ['crawl-ab'] },
  { file: 'memory-detail.js', role: 'module', what: 'resident memory grouped from /proc/self/smaps, V8 figures beside it', usedBy: ['crawl100k', 'cli-rss'] },
  { file: 'node-binary-pages.js', role: 'module', what: "the node binary's resident pages by what they hold", usedBy: ['cli-rss'] },
  { file: 'crawl-child.js', role: 'child', what: 'one in-process crawl, timed from inside', usedBy: ['crawl', 'crawl-ab', 'perf-thread'] },
  { file: 'crawl-sample-child.js', role: 'child', what: 'one crawl that samples itself at marks (URIs/s, RSS, memory detail, heap snapshots)', usedBy: ['crawl100k'] },
  { file: 'buffers-sample-child.js', role: 'child', what: "one crawl sampling its ArrayBuffer memory", usedBy: ['body-buffers'] },
  { file: 'browser-crawl-child.js', role: 'child', what: 'one HTTP-only or --browser crawl with the RSS of its process tree', usedBy: ['browser'] },
  { file: 'rss-at-exit.js', role: 'preload', what: 'peak RSS and its breakdown of a CLI process, written at exit', usedBy: ['cli-rss'] },
  { file: 'gc-pauses.js', role: 'preload', what: "each thread's V8 collections and pauses (a --variant of cli-rss)", usedBy: ['cli-rss'] },
];
