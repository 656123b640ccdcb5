/**
 * `npm run bench -- recrawl`: issue 38's measure on the whole of Debian's Python docs served by
 * nginx (bench/recrawl-scenario.ts; the test runs one section): crawl; edit 5% of the pages,
 * delete 1%, add 1%, touch 20% without change; `trove recrawl`; `trove changes`. Prints what the
 * report found against what was done, the recrawl's WARC bytes against the first crawl's (issue
 * 38's target: at most 10%) and what they are made of, record by record, the recrawl's requests nginx answered 304, how many pages replay from the recrawl as the live site
 * serves them, and the wall time of each crawl with the load (a loaded machine's figure).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nginxAvailable } from './bench-nginx.ts';
import { DOCS, recordCosts, replayMismatches, runRecrawlScenario } from './recrawl-scenario.ts';
import { prng } from '../test/helpers/seeded-random.ts';


if (!nginxAvailable() || !fs.existsSync(DOCS)) {
  console.log('recrawl: skipped (needs nginx and python3-doc)');
  process.exit(0);
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-recrawl-bench-'));
// nginx's workers may run as another user: they must get through to each run's site copy.
fs.chmodSync(work, 0o755);
const section = process.argv.find((a) => a.startsWith('--section='))?.slice(10) ?? '/';
try {
  console.log(`load before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const revisitAlone of [false, true]) {
    const t0 = Date.now();
    const runDir = path.join(work, revisitAlone ? 'alone' : 'default');
    fs.mkdirSync(runDir);
    const r = await runRecrawlScenario({ work: runDir, section, random: prng(38), revisitAlone });
    console.log(`\n${revisitAlone ? 'with --revisit-alone (a revisit of its own URL without its request record)' : 'default (a revisit of its own URL keeps its request record, has no metadata record)'}:`);
    const wall = Date.now() - t0;
    const paths = (kind: string) => r.report.pages.filter((p) => p.kind === kind).map((p) => new URL(p.url).pathname).sort();
    const same = (a: string[], b: string[]) => a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);
    const touchedChanged = r.touched.filter((t) => paths('changed').includes(t)).length;
    const alone = r.recrawlRequests.filter(([p]) => p.endsWith('.html') && ![...r.edited, ...r.touched, ...r.deleted, ...r.added].includes(p));
    const replayed = await replayMismatches(r);
    await r.nginx.close();
    console.log(`section ${section}: ${r.pages} pages; first crawl ${r.first.downloaded} URIs, recrawl ${r.second.downloaded} URIs; both crawls and the report in ${(wall / 1000).toFixed(1)} s`);
    console.log(`edited ${r.edited.length}, deleted ${r.deleted.length}, added ${r.added.length}, touched ${r.touched.length}`);
    console.log(`report: changed ${paths('changed').length} (exactly the edited: ${same(paths('changed'), r.edited)}), removed ${paths('removed').length} (exactly the deleted: ${same(paths('removed'), r.deleted)}), added ${paths('added').length} (exactly the added: ${same(paths('added'), r.added)}), changed among touched ${touchedChanged}, unchanged ${paths('unchanged').length}`);
    const ratio = (100 * r.secondWarcBytes) / r.firstWarcBytes;
    console.log(`WARC bytes: first ${r.firstWarcBytes}, recrawl ${r.secondWarcBytes} = ${ratio.toFixed(1)}% of the first; target <= 10%: ${ratio <= 10 ? 'met' : 'NOT met'}`);
    const costs = [...(await recordCosts(r.secondDir))].sort((a, b) => b[1].bytes - a[1].bytes);
    console.log(`recrawl bytes by record (compressed): ${costs.map(([k, c]) => `${k} ${c.count} × ${Math.round(c.bytes / c.count)} = ${c.bytes}`).join('; ')}`);
    console.log(`nginx: ${r.recrawlRequests.filter(([, s]) => s === 304).length} of ${r.recrawlRequests.length} recrawl requests answered 304; HTML files left alone answered 304: ${alone.filter(([, s]) => s === 304).length} of ${alone.length}`);
    console.log(`replay from the recrawl: ${replayed.compared - replayed.differ.length} of ${replayed.compared} URLs identical to the live body${replayed.differ.length ? ` (differ: ${replayed.differ.slice(0, 5).join(' ')})` : ''}`);
  }
  console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
