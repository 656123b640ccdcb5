/**
 * The URL work the crawl thread does for one claimed URI, in isolation (issue 20): the way the
 * chain did it before each step read one parse (five WHATWG parses of the same string: scope
 * recheck, the robots.txt URL, its origin, the fetcher's request target, the trap shape; and one
 * python-surt key per index row, three per capture) and the way it does it now (one parse read by
 * every step, one SURT key per capture). Both sides call this tree's functions on the same URLs,
 * timed in alternating rounds (medians of CPU time, not wall time), and print the ratio and the
 * µs saved per URI, to set beside a crawl's CPU per URI (~1,800 µs on the synthetic site).
 *
 * The URLs are the 11,111-page synthetic site's (crawl100k-bench.ts, a page and its image) and,
 * when python3-doc is installed, the Python docs' page paths.
 *
 *   node bench/url-once-bench.ts [--rounds=N]
 */
import fs from 'node:fs';
import path from 'node:path';
import { robotsUrlFor, robotsUrlOf } from '../core/robots/robots-state.ts';
import { shapeOf } from '../core/crawl/trap-shape.ts';
import { surt, surtKey } from '../core/scope/surt.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Math.max(1, Number(arg('rounds') ?? 9));
const DOCS = '/usr/share/doc/python3-doc/html';
const ORIGIN = 'http://127.0.0.1:41234';

function syntheticUrls(): string[] {
  const urls = [`${ORIGIN}/`];
  for (let n = 0; n < 11_111; n++) urls.push(`${ORIGIN}/p/${n}.html`, `${ORIGIN}/i/${n}.png`);
  return urls;
}

function docsUrls(): string[] {
  if (!fs.existsSync(DOCS)) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`${ORIGIN}/${path.relative(DOCS, p).split(path.sep).map(encodeURIComponent).join('/')}`);
    }
  };
  walk(DOCS);
  return out;
}

/** What the steps read, kept so nothing is optimised away. */
let sink = 0;

/** Before: each step parsed the claimed URL itself; each index row made its own SURT key. */
function before(url: string): void {
  parsesBefore(url);
  let keys = 0;
  for (let r = 0; r < 3; r++) keys += surt(url).length; // response, request, metadata rows
  sink += keys;
}

function parsesBefore(url: string): void {
  const host = new URL(url).hostname; // recheck-scope
  const robotsUrl = robotsUrlFor(url); // robots gate: the robots.txt URL (a parse) …
  const origin = new URL(robotsUrl).origin; // … and its origin (another)
  const u = new URL(url); // the fetcher's request target
  const target = u.pathname + u.search;
  const shape = shapeOf(url); // the trap detector
  sink += host.length + origin.length + target.length + (shape?.shape.length ?? 0) + u.origin.length;
}

/** After: one parse read by every step; the capture's SURT key made once for its three rows. */
function after(url: string): void {
  parsesAfter(url);
  let keys = 0;
  for (let r = 0; r < 3; r++) keys += surtKey(url).length;
  sink += keys;
}

function parsesAfter(url: string): void {
  const parsed = URL.parse(url)!;
  const host = parsed.hostname;
  const robotsUrl = robotsUrlOf(parsed, url);
  const origin = robotsUrl.slice(0, -'/robots.txt'.length);
  const target = parsed.pathname + parsed.search;
  const shape = shapeOf(url, parsed);
  sink += host.length + origin.length + target.length + (shape?.shape.length ?? 0) + parsed.origin.length;
}

/** The SURT keys of a capture's three index rows, alone: each made, or made once. */
function keysBefore(url: string): void {
  for (let r = 0; r < 3; r++) sink += surt(url).length;
}
function keysAfter(url: string): void {
  for (let r = 0; r < 3; r++) sink += surtKey(url).length;
}

/** Mean µs of process CPU (user + system) per URL over the list. */
function time(urls: string[], fn: (url: string) => void): number {
  const t = process.cpuUsage();
  for (const u of urls) fn(u);
  const d = process.cpuUsage(t);
  return (d.user + d.system) / urls.length;
}

function pair(label: string, urls: string[], before: (url: string) => void, after: (url: string) => void): void {
  time(urls, before);
  time(urls, after);
  const b: number[] = [];
  const a: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      b.push(time(urls, before));
      a.push(time(urls, after));
    } else {
      a.push(time(urls, after));
      b.push(time(urls, before));
    }
  }
  const mid = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)]!;
  const [mb, ma] = [mid(b), mid(a)];
  console.log(
    `${label.padEnd(52)} before ${mb.toFixed(2).padStart(6)} µs  after ${ma.toFixed(2).padStart(6)} µs  after/before ${(ma / mb).toFixed(2)}  saved ${(mb - ma).toFixed(2)} µs per URI`,
  );
}

// The two sides must agree on what they read before they are compared.
for (const url of [...syntheticUrls().slice(0, 50), ...docsUrls().slice(0, 50)]) {
  const parsed = new URL(url);
  if (robotsUrlOf(parsed, url).slice(0, -'/robots.txt'.length) !== new URL(robotsUrlFor(url)).origin) throw new Error(`origin differs: ${url}`);
  if (JSON.stringify(shapeOf(url, parsed)) !== JSON.stringify(shapeOf(url)) || surtKey(url) !== surt(url)) throw new Error(`differs: ${url}`);
}

const load = () => (fs.existsSync('/proc/loadavg') ? fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0] : '?');
console.log(`url-once: the claimed URI's URL work before (5 parses, 3 SURT keys) and after (1 parse, 1 SURT key), ${rounds} alternated rounds, 1-min load ${load()}`);
const sets: [string, string[]][] = [['synthetic site (22,223 URLs)', syntheticUrls()]];
const docs = docsUrls();
if (docs.length > 0) sets.push([`Python docs (${docs.length.toLocaleString('en')} URLs)`, docs]);
for (const [name, urls] of sets) {
  pair(`${name}: all`, urls, before, after);
  pair(`${name}: WHATWG parses`, urls, parsesBefore, parsesAfter);
  pair(`${name}: SURT keys`, urls, keysBefore, keysAfter);
}
if (docs.length === 0) console.log('Python docs: skipped (python3-doc not installed)');
console.log(`1-min load after: ${load()}${sink === 0 ? ' ' : ''}`);
