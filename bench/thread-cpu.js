/**
 * CPU time of each of this process's threads, summed by thread name, from /proc (Linux): the crawl
 * thread ("MainThread"), the extraction worker ("trove-extract"), V8's helpers ("V8Worker":
 * concurrent GC, compilation) and libuv's pool ("libuv-worker": zlib, file I/O). Unlike a CPU
 * profile, which samples wall-clock time per thread, this is time actually spent on a core.
 * Threads that already exited are not counted. Plain JavaScript: the crawl children load it.
 */
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** @returns {Record<string, number>} CPU ms (user + system) by thread name; {} where /proc is missing. */
export function threadCpuMs() {
  /** @type {Record<string, number>} */
  const out = {};
  let tasks;
  try {
    tasks = fs.readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const t of tasks) {
    let stat;
    try {
      stat = fs.readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state …: comm may hold spaces, so split after the last ')'.
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out[name] = (out[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  }
  return out;
}
