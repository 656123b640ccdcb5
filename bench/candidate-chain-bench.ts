/**
 * The crawl thread's share of every discovered link (issue 20): CPU per page of outlinks through
 * the candidate chain (parse, scope rules, canonical key, fingerprint, queue key), on two link
 * shapes: the synthetic crawl's (11 links, each new) and a documentation site's (the same 40
 * navigation links on every page, plus 11 of its own). Beside this checkout: the same chain with
 * its memory of decisions off (a scope without `seedsAdded`), and optionally a baseline checkout.
 * Ratios from the same run; nothing touches the network or a database.
 *
 *   node bench/candidate-chain-bench.ts [--baseline=<a checkout to compare, with node_modules>]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Outlink } from '../core/extract/outlink.ts';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const baseline = process.argv.find((a) => a.startsWith('--baseline='))?.slice('--baseline='.length);
const PAGES = 20_000;
const ORIGIN = 'http://127.0.0.1:8080';

const own = (i: number): Outlink[] => [
  ...Array.from({ length: 10 }, (_, k): Outlink => ({ url: `${ORIGIN}/p/${i}${k}.html`, hop: 'L', context: 'a/@href' })),
  { url: `${ORIGIN}/i/${i}.png`, hop: 'E', context: 'img/@src' },
];
const nav = Array.from({ length: 40 }, (_, k): Outlink => ({ url: `${ORIGIN}/nav/${k}.html`, hop: 'L', context: 'a/@href' }));
const shapes: [string, (i: number) => Outlink[]][] = [
  ['11 new links a page', own],
  ['40 shared + 11 new links a page', (i) => [...nav, ...own(i)]],
];

/** µs of CPU per page for each shape, the second of two passes (the first warms the JIT). */
async function measure(tree: string, remember: boolean): Promise<number[]> {
  const { CandidateChain } = await import(path.join(tree, 'core/crawl/candidate-chain.ts'));
  const { buildScope, scopeSettingsFrom } = await import(path.join(tree, 'core/scope/decide-rules.ts'));
  const { defaultSettings } = await import(path.join(tree, 'core/api/settings.ts'));
  const out: number[] = [];
  for (const [, links] of shapes) {
    const scope = buildScope(scopeSettingsFrom(defaultSettings()), [`${ORIGIN}/`]);
    const decider = remember ? scope : { decide: scope.decide };
    const chain = new CandidateChain(decider, 'host', () => {}, () => {});
    let us = 0;
    for (let pass = 0; pass < 2; pass++) {
      const t = process.cpuUsage();
      for (let i = 0; i < PAGES; i++) chain.fromOutlinks({ url: `${ORIGIN}/p/${i}.html`, hopsPath: 'LLL', seed: false }, links(i), false);
      const u = process.cpuUsage(t);
      us = (u.user + u.system) / PAGES;
    }
    out.push(us);
  }
  return out;
}

const rows: [string, number[]][] = [];
if (baseline) rows.push([`baseline (${baseline})`, await measure(path.resolve(baseline), true)]);
rows.push(['this checkout, decisions not remembered', await measure(here, false)]);
rows.push(['this checkout', await measure(here, true)]);
const ref = rows[0]![1];
console.log(`\ncandidate chain: µs of CPU per page of outlinks (${PAGES} pages), ratio against the first row`);
console.log(`| chain | ${shapes.map(([n]) => n).join(' | ')} |`);
console.log(`|---|${shapes.map(() => '---:').join('|')}|`);
for (const [name, us] of rows) console.log(`| ${name} | ${us.map((u, i) => `${u.toFixed(0)} µs (${(u / ref[i]!).toFixed(2)}×)`).join(' | ')} |`);
