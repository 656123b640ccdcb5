/**
 * Whether bench/ is still a tool and not a notebook: every script in it is a bench or tool that
 * `npm run bench -- NAME` reaches (bench/registry.ts), or a helper that one of those scripts
 * names; every `*-bench.ts` is a bench; and bench/README.md stays a page, not a log (its history
 * lives in `git log -- bench/README.md`). Printed by `npm run bench -- --check`, asserted by
 * test/bench/bench-registry.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCHES, HELPERS, TOOLS } from './registry.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** What bench/README.md may grow to. */
export const README_MAX_LINES = 400;

/** Files in bench/ that are the runner itself, its registry, or documentation. */
const RUNNER = new Set(['run.ts', 'registry.ts', 'registry-check.ts', 'README.md']);

export interface BenchCheck {
  readmeLines: number;
  readmeMaxLines: number;
  /** Scripts in bench/ that nothing reachable from `npm run bench` runs or names, with why. */
  unreachable: string[];
}

export function benchCheck(dir = here): BenchCheck {
  const runnable = [...BENCHES, ...TOOLS];
  const byName = new Map(runnable.map((b) => [b.name, b]));
  const registered = new Set(runnable.map((b) => b.file));
  const helpers = new Map(HELPERS.map((h) => [h.file, h]));
  const unreachable: string[] = [];
  const files = fs
    .readdirSync(dir)
    .filter((f) => /\.(ts|js|mjs|cjs|sh|py)$/.test(f) && !f.endsWith('.d.ts') && !RUNNER.has(f))
    .sort();
  for (const f of files) {
    if (registered.has(f)) continue;
    if (/-bench\.ts$/.test(f)) {
      unreachable.push(`${f} (a bench missing from bench/registry.ts)`);
      continue;
    }
    const h = helpers.get(f);
    if (!h) {
      unreachable.push(`${f} (neither a bench, a tool nor a helper in bench/registry.ts)`);
      continue;
    }
    const base = f.replace(/\.(ts|js)$/, '');
    const named = h.usedBy.some((n) => {
      const user = byName.get(n);
      return user !== undefined && fs.existsSync(path.join(dir, user.file)) && fs.readFileSync(path.join(dir, user.file), 'utf8').includes(base);
    });
    if (!named) unreachable.push(`${f} (a helper none of ${h.usedBy.join(', ')} names)`);
  }
  for (const b of runnable) if (!fs.existsSync(path.join(dir, b.file))) unreachable.push(`${b.name} → ${b.file} (registered, no such file)`);
  const readme = path.join(dir, 'README.md');
  const readmeLines = fs.existsSync(readme) ? fs.readFileSync(readme, 'utf8').split('\n').length - (fs.readFileSync(readme, 'utf8').endsWith('\n') ? 1 : 0) : 0;
  return { readmeLines, readmeMaxLines: README_MAX_LINES, unreachable };
}
