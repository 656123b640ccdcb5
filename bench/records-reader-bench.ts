/**
 * The readers of every record (issue 20's fold, capture-folds.ts): the records browser's pages
 * under several filters, a WARC subset's count and pages, the CDXJ rows, and lookups by id and
 * record id, timed on a crawl's archive by this tree and by a baseline tree on its own crawl of
 * the same site, alternated. Since schema 10 a crawl's request and metadata records are folded
 * into their capture's row and each reader expands rows; this says what that costs a reader.
 *
 *   node bench/crawl100k-bench.ts --levels=4 --keep                 # in each tree: a kept crawl
 *   node bench/records-reader-bench.ts <crawl folder> --baseline=DIR --baseline-archive=<DIR's crawl folder>
 *
 * Prints the median milliseconds per call of each reader in each tree, and their ratio.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const here = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const trees = [{ name: 'this tree', root: here, archive: args.find((a) => !a.startsWith('--')) }];
if (opt('baseline')) trees.push({ name: 'baseline', root: path.resolve(opt('baseline')!), archive: opt('baseline-archive') });
if (trees.some((t) => !t.archive)) {
  console.error('usage: node bench/records-reader-bench.ts <crawl folder> [--baseline=DIR --baseline-archive=<crawl folder>]');
  process.exit(2);
}
const ROUNDS = Number(opt('rounds') ?? 7);

type Case = { name: string; run: () => unknown };

async function casesFor(root: string, dir: string): Promise<{ cases: Case[]; close: () => void }> {
  const load = (p: string) => import(pathToFileURL(path.join(root, p)).href);
  const { openArchive } = await load('core/archive/archive-dir.ts');
  const { queryRecords } = await load('core/archive/record-query.ts');
  const { RecordSubset } = await load('core/archive/record-subset.ts');
  const archive = openArchive(dir, { create: false });
  const total: number = archive.index.count();
  const some = queryRecords(archive, {}, { limit: 1000 }).rows as { id: number; recordId: string; url: string }[];
  const sample = some.filter((_, i) => i % 37 === 0);
  const host = new URL(some[0]!.url).host;
  const deep = Math.floor(total * 0.8);
  const cases: Case[] = [
    { name: 'browser: first page, no filter', run: () => queryRecords(archive, {}, { limit: 100 }) },
    { name: 'browser: page at 80%, no filter', run: () => queryRecords(archive, {}, { limit: 100, after: deep }) },
    { name: 'browser: type request', run: () => queryRecords(archive, { type: ['request'] }, { limit: 100, after: deep }) },
    { name: 'browser: type response', run: () => queryRecords(archive, { type: ['response'] }, { limit: 100, after: deep }) },
    { name: 'browser: types response+metadata', run: () => queryRecords(archive, { type: ['response', 'metadata'] }, { limit: 100 }) },
    { name: 'browser: one URL (with total)', run: () => queryRecords(archive, { url: some[300]!.url }, { limit: 100 }) },
    { name: 'browser: host (with total)', run: () => queryRecords(archive, { host }, { limit: 100 }) },
    { name: 'browser: mime application/', run: () => queryRecords(archive, { mime: 'application/' }, { limit: 100, after: deep }) },
    { name: 'browser: status 200', run: () => queryRecords(archive, { status: [200] }, { limit: 100, after: deep }) },
    {
      name: 'subset: count, host',
      run: () => new RecordSubset(archive, { host }).count(),
    },
    {
      name: 'subset: 10 pages of 100',
      run: () => {
        const s = new RecordSubset(archive, { host });
        let after = deep;
        for (let i = 0; i < 10; i++) after = s.page(after, 100).at(-1)?.id ?? after;
      },
    },
    {
      name: 'CDXJ rows: 10 pages of 500',
      run: () => {
        let after = 0;
        for (let i = 0; i < 10; i++) after = archive.index.cdxjRows(after, 500).at(-1)?.id ?? after;
      },
    },
    { name: 'byId × sample', run: () => sample.forEach((r) => archive.index.byId(r.id)) },
    { name: 'byRecordId × sample', run: () => sample.forEach((r) => archive.index.byRecordId(r.recordId)) },
  ];
  return { cases, close: () => archive.close() };
}

const loaded = await Promise.all(trees.map((t) => casesFor(t.root, t.archive!)));
const times = trees.map(() => new Map<string, number[]>());
for (let round = 0; round < ROUNDS; round++) {
  for (const [i] of trees.entries()) {
    for (const c of loaded[i]!.cases) {
      const t0 = process.hrtime.bigint();
      c.run();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const list = times[i]!.get(c.name) ?? [];
      list.push(ms);
      times[i]!.set(c.name, list);
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`median ms per call, ${ROUNDS} rounds, trees alternated`);
console.log(`${'reader'.padEnd(36)} ${trees.map((t) => t.name.padStart(10)).join(' ')}${trees.length > 1 ? '      ratio' : ''}`);
for (const c of loaded[0]!.cases) {
  const m = times.map((t) => median(t.get(c.name)!));
  console.log(`${c.name.padEnd(36)} ${m.map((x) => x.toFixed(2).padStart(10)).join(' ')}${m.length > 1 ? `  ${(m[0]! / m[1]!).toFixed(2).padStart(9)}` : ''}`);
}
for (const l of loaded) l.close();
