/**
 * The Pages view of a big archive opens in well under a second (issue 39) because each of its
 * sorts, either way, walks an index (storage/migrations.ts, pagesViewOrder) instead of sorting
 * every page into a temporary B-tree: SQLite's own query plan says which.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import { sortedPagesSql } from '../../core/archive/record-query.ts';
import { removeTempDirs, tempDir } from '../replay/archive-fixture.ts';

afterAll(removeTempDirs);

describe('the Pages view query', () => {
  it('walks an index for every sort, ascending and descending', () => {
    const archive = openArchive(tempDir());
    try {
      for (const sort of ['ts', 'url', 'title'] as const) {
        for (const desc of [false, true]) {
          const plan = (databaseOf(archive).prepare(`EXPLAIN QUERY PLAN ${sortedPagesSql(sort, desc)}`).all(200, 0) as { detail: string }[]).map((r) => r.detail).join('; ');
          expect(plan, `${sort} ${desc ? 'desc' : 'asc'}`).not.toContain('TEMP B-TREE');
          expect(plan).toMatch(/USING (COVERING )?INDEX records_pages/);
        }
      }
    } finally {
      archive.close();
    }
  });
});
