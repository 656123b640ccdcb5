/**
 * No import circles inside a room of `core/`: within each top folder (core/crawl with
 * core/crawl/chain, core/archive, …) the files import one another one way only, so any one of them
 * can be read, and loaded, knowing only what it imports. This test parses every relative import
 * and re-export of core/**\/*.ts (`import type` counts: a type circle is still a circle for a
 * reader), groups the files by room, and names every strongly-connected component of more than
 * one file (Tarjan's algorithm). Imports between rooms are not looked at here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tsFiles } from '../helpers/repo-files.ts';


/** `core/crawl/chain/uri-chain.ts` → `core/crawl`. */
function roomOf(file: string): string {
  return file.split('/').slice(0, 2).join('/');
}

/** The relative imports (and re-exports) of a file's source that stay in its room, as paths from the repository root. */
function importsInRoom(file: string, src: string): string[] {
  const out: string[] = [];
  for (const m of src.matchAll(/(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) {
    let target = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!));
    if (!target.endsWith('.ts')) target += '.ts';
    if (roomOf(target) === roomOf(file)) out.push(target);
  }
  return out;
}

/** The strongly-connected components of more than one node. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('import circles', () => {
  it('finds a circle when there is one, type imports included (so a clean scan means something)', () => {
    const graph = new Map<string, string[]>([
      ['core/x/a.ts', importsInRoom('core/x/a.ts', "import { b } from './b.ts';\nimport { y } from '../y/y.ts';")],
      ['core/x/b.ts', importsInRoom('core/x/b.ts', "import type { C } from './sub/c.ts';")],
      ['core/x/sub/c.ts', importsInRoom('core/x/sub/c.ts', "export type { A } from '../a';")],
      ['core/x/d.ts', importsInRoom('core/x/d.ts', "import { a } from './a.ts';")],
      ['core/y/y.ts', importsInRoom('core/y/y.ts', "import { d } from '../x/d.ts';")],
    ]);
    expect(circles(graph)).toEqual([['core/x/a.ts', 'core/x/b.ts', 'core/x/sub/c.ts']]);
  });

  it('finds none inside any room of core/', () => {
    const graph = new Map<string, string[]>();
    for (const file of tsFiles('core')) graph.set(file, importsInRoom(file, fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')));
    expect(graph.size).toBeGreaterThan(100);
    expect(circles(graph)).toEqual([]);
  });
});
