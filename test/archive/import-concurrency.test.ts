/**
 * Two imports into one archive at once. The second waits for the first, saying so in words
 * ("waiting for another import…"); both end with exit 0, no stack trace, no "database is
 * locked", and the database holds every record of both files exactly once (counted against
 * warcio, an independent reader). A writer outside Trove that keeps the database locked past
 * busy_timeout stops the import with a typed ARCHIVE_BUSY error.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../helpers/poll-until.ts';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import { IMPORT_LOCK_FILE, importIntoArchive } from '../../core/archive/import-warc.ts';
import { tryLock } from '../../core/storage/owner-lock.ts';
import { WarcWriter } from '../../core/warc/warc-writer.ts';
import { repoRoot } from '../helpers/corpus.ts';
import { readWarcFile } from '../helpers/read-warcs.ts';
import { removeTempDirs, tempDir } from '../replay/archive-fixture.ts';

afterAll(removeTempDirs);

const bin = path.join(repoRoot, 'bin', 'trove.js');

/** A WARC of `n` small HTML responses (made here, so no fixture file is needed). */
async function makeWarc(dir: string, prefix: string, n: number): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  const w = new WarcWriter({ dir, prefix, maxBytes: 1e12, warcinfo: () => ({ fields: { software: 'trove test' } }) });
  for (let i = 0; i < n; i++) {
    const body = Buffer.from(`<html><title>${prefix} ${i}</title><body>${'lorem ipsum '.repeat(200)}</body></html>`);
    const head = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\n\r\n`);
    await w.writeGroup([{ type: 'response', targetUri: `http://example.org/${prefix}/${i}.html`, date: new Date(), contentType: 'application/http; msgtype=response', blockParts: [head, body] }]);
  }
  await w.close();
  return path.join(dir, fs.readdirSync(dir).find((n) => n.endsWith('.warc.gz'))!);
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function startImport(file: string, archive: string): { done: Promise<Run>; stderr: () => string } {
  const child = spawn(process.execPath, [bin, 'import', file, '--archive', archive, '--no-progress'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return { done: new Promise((r) => child.on('exit', (code) => r({ code, stdout, stderr }))), stderr: () => stderr };
}

const until = (what: string, probe: () => boolean, attempts = 6000) => pollUntil(what, probe, { attempts, everyMs: 10 });

describe('two imports into one archive', () => {
  it('the second waits for the first, both finish cleanly, every record is there once', async () => {
    const src = tempDir();
    const a = await makeWarc(path.join(src, 'a'), 'A', 1500);
    const b = await makeWarc(path.join(src, 'b'), 'B', 1500);
    const archive = path.join(tempDir(), 'arch');
    fs.mkdirSync(archive);
    // Hold the import lock so both imports are certainly running, and waiting, at the same time;
    // then let them go together: one imports, the other waits for it.
    const held = tryLock(path.join(archive, IMPORT_LOCK_FILE));
    expect(held.ok).toBe(true);
    const one = startImport(a, archive);
    const two = startImport(b, archive);
    const waiting = `trove import: waiting for another import into ${archive} (process ${process.pid}) to finish…`;
    await until('both imports to wait', () => one.stderr().includes(waiting) && two.stderr().includes(waiting));
    if (held.ok) held.release();
    const runs = await Promise.all([one.done, two.done]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/SqliteError|database is locked|unexpected error|\n\s+at /);
      expect(r.stdout).toMatch(/^imported 1 file: 1501 records, 1500 pages, 0 problems\n/);
    }
    const db = new Database(path.join(archive, 'crawl.sqlite'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const files = db.prepare('SELECT id, path, records FROM warc_files ORDER BY path').all() as { id: number; path: string; records: number }[];
      expect(files.map((f) => f.path)).toEqual([a, b].sort());
      for (const f of files) {
        const expected = (await readWarcFile(f.path)).length;
        expect(f.records).toBe(expected);
        expect((db.prepare('SELECT count(*) AS n FROM records WHERE file_id = ?').get(f.id) as { n: number }).n).toBe(expected);
        expect((db.prepare('SELECT count(DISTINCT offset) AS n FROM records WHERE file_id = ?').get(f.id) as { n: number }).n).toBe(expected);
      }
    } finally {
      db.close();
    }
    expect(fs.existsSync(path.join(archive, IMPORT_LOCK_FILE))).toBe(false);
  }, 120_000);

  it('stops with ARCHIVE_BUSY when another writer keeps the database locked', async () => {
    const src = tempDir();
    const a = await makeWarc(path.join(src, 'a'), 'A', 20);
    const dir = path.join(tempDir(), 'arch');
    const archive = openArchive(dir);
    // A short busy_timeout on this connection; the 30 s default is what the CLI and the app get.
    databaseOf(archive).pragma('busy_timeout = 50');
    const other = new Database(path.join(dir, 'crawl.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    try {
      await expect(importIntoArchive(archive, [a])).rejects.toMatchObject({ code: 'ARCHIVE_BUSY', message: expect.stringMatching(/another process is writing to it/) });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    // Once the other writer is done, the same import goes through, and the lock was given back.
    const report = await importIntoArchive(archive, [a]);
    expect(report.records).toBe(21);
    archive.close();
  });
});
