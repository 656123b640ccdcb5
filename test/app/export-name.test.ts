// Export file names: one `-` between the words of the archive's name, whatever separators its
// library id kept ("Python 3.11 - docs" gave "Python-3.11---docs-….wacz").
import { describe, expect, it } from 'vitest';
import { exportBaseName } from '../../core/app/export-runner.ts';
import { Library } from '../../core/app/library.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

describe('export file names', () => {
  it('have no runs of dashes and no dash at either end of the name part', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-export-name-'));
    try {
      const lib = new Library(dir);
      const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
      const names = ['Python 3.11 - docs', 'Synthetic site (traps)', '--odd-- name!!', '(((', 'a_b.c'].map((n) => exportBaseName(lib.allocateId(n), at));
      expect(names).toEqual(['Python-3.11-docs-20260102030405', 'Synthetic-site-traps-20260102030405', 'odd-name-20260102030405', 'crawl-20260102030405', 'a_b.c-20260102030405']);
      for (const n of names) expect(n).not.toMatch(/--/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
