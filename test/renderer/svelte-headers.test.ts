// Every .svelte file opens with a comment that says why it exists: an HTML comment as its first
// line, or a doc comment as the first thing in its <script>.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../renderer/src/', import.meta.url));

function svelteFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? svelteFiles(p) : e.name.endsWith('.svelte') ? [p] : [];
  });
}

describe('.svelte headers', () => {
  it('every component says why it exists at its top', () => {
    const without = svelteFiles(SRC)
      .filter((f) => {
        const text = fs.readFileSync(f, 'utf8');
        return !/^<!--[^]*?-->/.test(text) && !/^<script[^>]*>\s*\/\*\*/.test(text);
      })
      .map((f) => path.relative(SRC, f));
    expect(without).toEqual([]);
  });
});
