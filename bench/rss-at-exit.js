/**
 * Preloaded with `--import` into a `trove` CLI process by bench/cli-crawl-rss-bench.ts: at exit,
 * append one JSON line to $TROVE_RSS_OUT with the process's peak RSS and the kernel's split of
 * its resident memory (/proc/self/smaps_rollup: file-backed vs anonymous), so the CLI itself is
 * measured, flags, commander, progress and all, not a bench child that calls the core directly.
 * Plain JavaScript: it loads before any TypeScript.
 */
import fs from 'node:fs';

process.on('exit', () => {
  const out = process.env.TROVE_RSS_OUT;
  if (!out) return;
  const t = fs.readFileSync('/proc/self/smaps_rollup', 'utf8');
  const kib = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(t)?.[1] ?? NaN);
  const cpu = process.cpuUsage();
  fs.appendFileSync(
    out,
    JSON.stringify({ maxRssKib: process.resourceUsage().maxRSS, rssKib: kib('Rss'), anonKib: kib('Anonymous'), fileKib: kib('Rss') - kib('Anonymous'), cpuMs: (cpu.user + cpu.system) / 1000 }) + '\n',
  );
});
