/**
 * Temporary archive directories for archive, replay and CLI tests: made by importing real files
 * (corpus WARCs, or WARCs written with warc-fixture.ts), removed after the test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { importIntoArchive } from '../../core/archive/import-warc.ts';
import type { ImportOptions } from '../../core/archive/import-warc.ts';
import type { ImportReport } from '../../core/api/archive-types.ts';

const made: string[] = [];

/** A fresh temporary directory, removed by `removeTempDirs()`. */
export function tempDir(prefix = 'trove-archive-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export interface TestArchive {
  archive: Archive;
  report: ImportReport;
  dir: string;
}

/** An archive in a new temporary directory with `files` imported (by reference unless `copy`). */
export async function archiveOf(files: string[], opts: ImportOptions = {}): Promise<TestArchive> {
  const dir = tempDir();
  const archive = openArchive(path.join(dir, 'archive'));
  const report = await importIntoArchive(archive, files, opts);
  return { archive, report, dir };
}
