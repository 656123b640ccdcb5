/**
 * `npm run bench`: the benchmarks, each in its own process (so peak-RSS figures are each bench's
 * own), one after another. Results are printed as ratios against a reference measured in the
 * same run. `npm run bench -- crawl index` runs only those; any other arguments (flags such as
 * `npm run bench -- pg --uris 1000000`) go to each bench run. `--help` lists every bench and tool
 * with what it measures (bench/registry.ts); `--check` says whether every script in bench/ is
 * reachable from here and whether bench/README.md is within its length.
 *
 * Some need Debian packages: nginx, python3-doc, wget and time (the crawl and index benches use
 * the Python docs served by nginx); they say so and skip when missing.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCHES, TOOLS } from './registry.ts';
import { benchCheck } from './registry-check.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);

if (args.includes('--help') || args.includes('-h')) {
  const width = Math.max(...[...BENCHES, ...TOOLS].map((b) => b.name.length)) + 2;
  console.log('npm run bench [-- NAME…] [--flags for the benches]\n');
  console.log('Benches (plain `npm run bench` runs those without *; * runs only when named):');
  for (const b of BENCHES) console.log(`  ${(b.name + (b.namedOnly ? ' *' : '')).padEnd(width + 2)}${b.what}`);
  console.log('\nTools (read what a bench wrote; run by name):');
  for (const t of TOOLS) console.log(`  ${t.name.padEnd(width + 2)}${t.what}`);
  console.log('\nFigures, machines and dates: bench/README.md. `npm run bench -- --check`: every script reachable, README length.');
  process.exit(0);
}

if (args.includes('--check')) {
  const c = benchCheck();
  console.log(`lines of bench/README.md: ${c.readmeLines} (at most ${c.readmeMaxLines})`);
  console.log(`benches not reachable from npm run bench: ${c.unreachable.length}${c.unreachable.length ? ` (${c.unreachable.join(', ')})` : ''}`);
  process.exit(c.readmeLines <= c.readmeMaxLines && c.unreachable.length === 0 ? 0 : 1);
}

// Names pick benches and tools; every other argument goes to each one picked.
const all = [...BENCHES, ...TOOLS];
const names = new Set(all.map((b) => b.name));
const wanted = args.filter((a) => names.has(a));
const passed = args.filter((a) => !names.has(a));
let failed = 0;
for (const { name, file, what, namedOnly } of all) {
  if (wanted.length > 0 ? !wanted.includes(name) : namedOnly) continue;
  console.log(`\n=== ${name}: ${what}`);
  const r = spawnSync(process.execPath, [path.join(here, file), ...passed], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`=== ${name} exited ${r.status ?? r.signal}`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
