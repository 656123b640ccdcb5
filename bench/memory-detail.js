/**
 * What holds a crawl's resident memory, read from inside the crawling process (issue 20): the
 * JS heaps say only what V8 holds, RSS only the total, and the rest (SQLite, glibc's arenas, zlib,
 * thread stacks, mapped files) has no counter of its own. So this reads the kernel's view,
 * /proc/self/smaps, and groups the mappings by what made them; V8's own statistics (the crawl
 * thread's and each extraction worker's) are then subtracted from the anonymous memory to leave
 * the native part. Used by bench/crawl-sample-child.js when crawl100k-bench.ts runs with
 * `--memory-detail`; plain JavaScript because that child starts before the TypeScript core loads.
 *
 * How the anonymous mappings are told apart (glibc 2.36, x86-64 Linux):
 * - `[heap]`: the main malloc arena (brk), used by the crawl thread's malloc.
 * - a glibc thread arena is a 64 MiB-aligned region of 64 MiB (HEAP_MAX_SIZE), its used part
 *   read-write and the rest PROT_NONE;
 * - a thread stack is a read-write mapping right after a PROT_NONE guard of one page or more that
 *   is not such an arena region;
 * - everything else anonymous: V8's heap pages and code space, and malloc's own mmapped chunks
 *   (≥ 128 KiB by default, or past the dynamic threshold).
 */
import fs from 'node:fs';
import v8 from 'node:v8';

const KIB = 1024;
const ARENA = 64 * 1024 * 1024;

/** @returns {{ start: bigint; end: bigint; perms: string; path: string; rss: number; anon: number }[]} bytes */
function mappings() {
  const out = [];
  let cur = null;
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      cur = { start: BigInt('0x' + head[1]), end: BigInt('0x' + head[2]), perms: head[3], path: head[4].trim(), rss: 0, anon: 0 };
      out.push(cur);
      continue;
    }
    const field = /^(Rss|Anonymous):\s+(\d+) kB$/.exec(line);
    if (field && cur) cur[field[1] === 'Rss' ? 'rss' : 'anon'] = Number(field[2]) * KIB;
  }
  return out;
}

/** Resident bytes of this process by kind of mapping (see the file comment). */
export function smapsGroups() {
  const maps = mappings();
  const groups = {
    mallocMain: 0,
    mallocArenas: 0,
    threadStacks: 0,
    anonOther: 0,
    sqliteShm: 0,
    sqliteMmap: 0,
    nodeBinary: 0,
    sharedLibs: 0,
    otherFiles: 0,
  };
  let arenas = 0;
  let stacks = 0;
  for (let i = 0; i < maps.length; i++) {
    const m = maps[i];
    const p = m.path;
    if (p === '[heap]') groups.mallocMain += m.rss;
    else if (p === '[stack]') groups.threadStacks += m.rss;
    else if (p.endsWith('.sqlite-shm')) groups.sqliteShm += m.rss;
    else if (p.endsWith('.sqlite')) groups.sqliteMmap += m.rss;
    else if (p.startsWith('/') && /\/node$/.test(p)) groups.nodeBinary += m.rss;
    else if (p.startsWith('/') && /\.so(\.|$)|\.node$/.test(p)) groups.sharedLibs += m.rss;
    else if (p.startsWith('/')) groups.otherFiles += m.rss;
    else if (p.startsWith('[')) groups.otherFiles += m.rss; // vdso, vvar
    else if (m.perms.startsWith('rw') && m.start % BigInt(ARENA) === 0n && isArena(maps, i)) {
      groups.mallocArenas += m.rss;
      arenas++;
    } else if (m.perms.startsWith('rw') && i > 0 && maps[i - 1].perms === '---p' && maps[i - 1].end === m.start && !maps[i - 1].path && !isArenaTail(maps, i - 1)) {
      groups.threadStacks += m.rss;
      stacks++;
    } else groups.anonOther += m.rss;
  }
  return { groups, arenas, stacks };
}

/** The arena's read-write part is followed by its PROT_NONE rest, up to 64 MiB in all. */
function isArena(maps, i) {
  const m = maps[i];
  const next = maps[i + 1];
  if (m.end - m.start === BigInt(ARENA)) return true;
  return !!next && next.perms === '---p' && next.start === m.end && next.end - m.start === BigInt(ARENA);
}

function isArenaTail(maps, i) {
  const m = maps[i];
  const prev = maps[i - 1];
  return !!prev && prev.end === m.start && prev.start % BigInt(ARENA) === 0n && m.end - prev.start === BigInt(ARENA);
}

/** /proc/self/smaps_rollup's anonymous and file-backed resident bytes. */
export function rollup() {
  const text = fs.readFileSync('/proc/self/smaps_rollup', 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1] ?? 0) * KIB;
  return { rss: kib('Rss'), anonymous: kib('Anonymous'), privateClean: kib('Private_Clean'), sharedClean: kib('Shared_Clean') };
}

/** How many file descriptors this process holds on `file` (one per SQLite connection to it). */
export function openCount(file) {
  let n = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === file) n++;
    } catch {
      // closed between the listing and the read
    }
  }
  return n;
}

/**
 * One sample: the kernel's groups, the crawl thread's memoryUsage and V8 statistics, each live
 * worker's V8 statistics, and the native remainder (anonymous memory that is not a V8 heap, a
 * thread stack or an ArrayBuffer backing store).
 * @param {{ getHeapStatistics(): Promise<v8.HeapInfo> }[]} workers
 * @param {string} dbFile
 */
export async function memoryDetail(workers, dbFile) {
  const mu = process.memoryUsage();
  const hs = v8.getHeapStatistics();
  const ws = [];
  for (const w of workers) {
    try {
      ws.push(await w.getHeapStatistics());
    } catch {
      // the worker exited (replaced after a timeout): nothing to count
    }
  }
  const { groups, arenas, stacks } = smapsGroups();
  const r = rollup();
  const v8Physical = hs.total_physical_size + ws.reduce((s, w) => s + w.total_physical_size, 0);
  const mib = (b) => Math.round((10 * b) / 2 ** 20) / 10;
  const anonAll = groups.mallocMain + groups.mallocArenas + groups.threadStacks + groups.anonOther;
  return {
    rss: mib(r.rss),
    anonymous: mib(r.anonymous),
    groups: Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, mib(v)])),
    arenas,
    stacks,
    main: { heapUsed: mib(mu.heapUsed), heapTotal: mib(mu.heapTotal), physical: mib(hs.total_physical_size), external: mib(mu.external), arrayBuffers: mib(mu.arrayBuffers), malloced: mib(hs.malloced_memory) },
    workers: ws.map((w) => ({ heapUsed: mib(w.used_heap_size), physical: mib(w.total_physical_size), external: mib(w.external_memory), malloced: mib(w.malloced_memory) })),
    // Anonymous resident memory less V8's heaps (both threads) and the thread stacks: malloc's
    // arenas and mmapped chunks (SQLite, zlib, ArrayBuffer backing stores, V8's own mallocs).
    native: mib(anonAll - groups.threadStacks - v8Physical),
    sqliteConnections: openCount(dbFile),
  };
}
