/**
 * excludeInCrawlDir's hand-over between a running crawl and a stopped one, on a real crawl
 * directory (SQLite frontier, directory lock, request files), with the clock and the sleep
 * injected: a crawl that holds the directory but never takes the request makes it time out with
 * EXCLUDE_NOT_TAKEN and leaves no request behind; a crawl that ends before taking it lets the
 * asker withdraw it and apply it directly; a stopped crawl is changed at once. (A crawl that
 * takes and answers requests: test/crawl/cli-exclude.test.ts, test/app/live-exclude.test.ts.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { excludeInCrawlDir } from '../../core/crawl/exclude-crawl-dir.ts';
import { acquireLock, prepareCrawlDir } from '../../core/crawl/crawl-dir.ts';
import { createSqliteFrontier } from '../../core/frontier/sqlite-frontier.ts';
import { closeDatabase, openDatabase } from '../../core/storage/open-database.ts';
import { getMeta, setMeta } from '../../core/storage/meta.ts';
import { defaultSettings } from '../../core/api/settings.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-exclude-dir-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A crawl directory with a queue of 10 URIs (half under /cal/) and nothing running. */
function crawlDir(name: string): string {
  const p = prepareCrawlDir(path.join(root, name));
  const db = openDatabase(p.db);
  setMeta(db, 'settings', { ...defaultSettings(), seeds: ['http://a.example/'] });
  createSqliteFrontier(db).schedule(
    Array.from({ length: 10 }, (_, i) => ({
      url: `http://a.example/${i % 2 ? 'cal' : 'page'}/${i}`,
      canonical: `http://a.example/${i}`,
      fingerprint: BigInt(i + 1),
      queueKey: 'a.example',
      hopsPath: 'L',
      via: 'http://a.example/',
    })),
  );
  closeDatabase(db);
  return p.dir;
}

const requests = (dir: string) => (fs.existsSync(path.join(dir, 'requests')) ? fs.readdirSync(path.join(dir, 'requests')) : []);

describe('excludeInCrawlDir', () => {
  it('changes a stopped crawl at once', async () => {
    const dir = crawlDir('stopped');
    const r = await excludeInCrawlDir(dir, '/cal/');
    expect(r).toMatchObject({ running: false, result: { added: true, dropped: 5 } });
    expect(fs.readFileSync(path.join(dir, 'logs', 'scope.log'), 'utf8').split('\n').filter(Boolean)).toHaveLength(5);
    const db = openDatabase(path.join(dir, 'crawl.sqlite'), { readonly: true });
    expect(getMeta<{ exclude: string[] }>(db, 'settings')!.exclude).toEqual(['/cal/']);
    expect(getMeta<{ statusCodes: Record<string, number> }>(db, 'statsTallies')).toBeUndefined(); // none stored yet: none made up
    closeDatabase(db);
    expect(requests(dir)).toEqual([]);
  });

  it('times out with EXCLUDE_NOT_TAKEN when the crawl holding the directory never takes it, and withdraws the request', async () => {
    const dir = crawlDir('deaf');
    const release = acquireLock(prepareCrawlDir(dir)); // a crawl that never looks at requests/
    let clock = 0;
    try {
      const err = await excludeInCrawlDir(dir, '/cal/', { timeoutMs: 1000, now: () => clock, sleep: async (ms) => void (clock += ms) }).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe('EXCLUDE_NOT_TAKEN');
      expect((err as Error).message).toMatch(/did not take the exclusion within 1 s; nothing was changed/);
    } finally {
      release();
    }
    expect(requests(dir)).toEqual([]);
    const db = openDatabase(path.join(dir, 'crawl.sqlite'), { readonly: true });
    expect(getMeta<{ exclude: string[] }>(db, 'settings')!.exclude).toEqual([]);
    closeDatabase(db);
  });

  it('applies it directly when the crawl ends before taking it', async () => {
    const dir = crawlDir('ending');
    let release: (() => void) | null = acquireLock(prepareCrawlDir(dir));
    let polls = 0;
    const r = await excludeInCrawlDir(dir, '/cal/', {
      sleep: async () => {
        // The request is waiting in requests/; then the crawl ends without having taken it.
        expect(requests(dir).filter((n) => n.endsWith('.json'))).toHaveLength(1);
        if (++polls === 2) {
          release?.();
          release = null;
        }
      },
    });
    expect(r).toMatchObject({ running: false, result: { dropped: 5 } });
    expect(requests(dir)).toEqual([]);
  });

  it('refuses a bad regex and a directory without a crawl, with their codes', async () => {
    await expect(excludeInCrawlDir(crawlDir('bad'), '(')).rejects.toMatchObject({ code: 'SCOPE_BAD_REGEX' });
    await expect(excludeInCrawlDir(path.join(root, 'none'), 'x')).rejects.toMatchObject({ code: 'CRAWL_NOT_FOUND' });
  });
});
