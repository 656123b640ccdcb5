/**
 * No function in `core/` over 120 lines, so each one can be read whole. The test parses every
 * core/**\/*.ts with the TypeScript compiler and measures each function-like node with a body
 * (declarations, methods, arrows, function expressions) from its first line to its last. There is
 * no generated code under core/; a generated file would be named here and skipped.
 *
 * There are no exceptions: a function over the limit is split into named steps (the functions
 * that were over it when this test came have been, issue 32).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tsFiles } from '../helpers/repo-files.ts';

const MAX_LINES = 120;

/** Generated files (none today), skipped. */
const GENERATED = new Set<string>();

interface LongFunction {
  /** `file:name` */
  id: string;
  line: number;
  lines: number;
}

/** The function's name: its own, or the variable or property it is assigned to; `<anonymous>` otherwise. */
function nameOf(n: ts.SignatureDeclaration): string {
  if (n.name) return n.name.getText();
  const p = n.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p))) return p.name.getText();
  return '<anonymous>';
}

function longFunctions(file: string, src: string): LongFunction[] {
  const sf = ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true);
  const out: LongFunction[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_LINES) out.push({ id: `${file}:${nameOf(n)}`, line: first + 1, lines });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('function length', () => {
  it('measures functions of every kind (so a clean scan means something)', () => {
    const body = (k: number) => Array.from({ length: k }, (_, i) => `  const a${i} = ${i};`).join('\n');
    const src = [
      `export function longOne() {\n${body(119)}\n}`, // 121 lines
      `function shortOne() {\n${body(118)}\n}`, // 120 lines: at the limit, allowed
      `const arrow = () => {\n${body(130)}\n};`,
      `class C {\n  method() {\n${body(125)}\n  }\n}`,
      `const o = { inner: function () {\n${body(121)}\n} };`,
    ].join('\n');
    expect(longFunctions('core/x/sample.ts', src).map((f) => [f.id, f.lines])).toEqual([
      ['core/x/sample.ts:longOne', 121],
      ['core/x/sample.ts:arrow', 132],
      ['core/x/sample.ts:method', 127],
      ['core/x/sample.ts:inner', 123],
    ]);
  });

  it(`finds no function over ${MAX_LINES} lines in core/`, () => {
    const found: LongFunction[] = [];
    for (const file of tsFiles('core').filter((f) => !f.endsWith('.d.ts'))) {
      if (GENERATED.has(file)) continue;
      found.push(...longFunctions(file, fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')));
    }
    expect(found.map((f) => `${f.id} (line ${f.line}): ${f.lines} lines`)).toEqual([]);
  });
});
