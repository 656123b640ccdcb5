/**
 * What grew between two V8 heap snapshots of the same process (written by
 * crawl-sample-child.js with BENCH_HEAP_SNAPSHOTS): live objects grouped by kind and constructor
 * (or, for strings and arrays, by kind), the groups that grew most first. A snapshot holds only
 * what survived the collection taken before it, so this is the live heap's growth, not garbage.
 *
 *   node bench/heap-snapshot-diff.js a.heapsnapshot b.heapsnapshot [rows]
 */
import fs from 'node:fs';

function groups(file) {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8'));
  const meta = snap.snapshot.meta;
  const f = meta.node_fields;
  const types = meta.node_types[0];
  const width = f.length;
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((n) => f.indexOf(n));
  const out = new Map();
  const nodes = snap.nodes;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + iType]];
    const name = type === 'object' || type === 'closure' || type === 'native' ? snap.strings[nodes[i + iName]] : '';
    const key = `${type} ${name}`.slice(0, 80);
    const g = out.get(key) ?? { n: 0, bytes: 0 };
    g.n++;
    g.bytes += nodes[i + iSize];
    out.set(key, g);
  }
  return out;
}

const [a, b, rows = '25'] = process.argv.slice(2);
const ga = groups(a);
const gb = groups(b);
const keys = new Set([...ga.keys(), ...gb.keys()]);
const diff = [...keys].map((k) => {
  const x = ga.get(k) ?? { n: 0, bytes: 0 };
  const y = gb.get(k) ?? { n: 0, bytes: 0 };
  return { k, dn: y.n - x.n, db: y.bytes - x.bytes, b: y.bytes };
});
diff.sort((p, q) => q.db - p.db);
const total = (g) => [...g.values()].reduce((s, x) => s + x.bytes, 0);
console.log(`live heap ${(total(ga) / 2 ** 20).toFixed(1)} → ${(total(gb) / 2 ** 20).toFixed(1)} MiB`);
for (const d of diff.slice(0, Number(rows))) console.log(`${(d.db / 1024).toFixed(0).padStart(9)} KiB ${String(d.dn).padStart(9)} objects  ${d.k}`);
