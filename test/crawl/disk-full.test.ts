/**
 * A full disk never corrupts a WARC: the crawl runs in a real, small tmpfs; when a WARC write
 * fails with ENOSPC the writer cuts the file back to its last complete group, the URI goes back
 * to the queue and the crawl pauses with a clear message; when space is freed (the tmpfs is
 * grown) it carries on by itself and finishes with every page captured. The --min-free-disk
 * guard pauses before the disk is full. Needs root (mount); skipped with a message otherwise.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';

function tryMount(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-mount-probe-'));
const canMount = tryMount(probe, '1m');
if (canMount) execFileSync('umount', [probe]);
fs.rmSync(probe, { recursive: true, force: true });
if (!canMount) console.warn('disk-full tests skipped: they mount a small tmpfs, which needs root (CI runs as root)');

describe.skipIf(!canMount)('a full disk', () => {
  let site: TreeSite;
  const mounts: string[] = [];
  beforeAll(async () => {
    site = await startTreeSite({ pages: 120, pageBytes: 20_000, incompressible: true, delayMs: 1 });
  });
  afterAll(async () => {
    await site.close();
    for (const m of mounts) {
      try {
        execFileSync('umount', ['-l', m]);
      } catch {
        /* already gone */
      }
      fs.rmSync(m, { recursive: true, force: true });
    }
  });

  it('pauses on ENOSPC without corrupting the WARC, and resumes when space is freed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-full-'));
    mounts.push(dir);
    expect(tryMount(dir, '1200k')).toBe(true);
    const crawl = await startCrawl({
      dir,
      settings: { seeds: [site.seed], concurrency: 2, perHost: 2, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 },
    });
    const messages: string[] = [];
    crawl.on((e) => e.type === 'log' && messages.push(e.message));
    while (crawl.state !== 'paused' && crawl.state !== 'finished') await new Promise((r) => setTimeout(r, 20));
    expect(crawl.state).toBe('paused');
    expect(messages.join('\n')).toMatch(/writing the WARC failed|free some disk space/);
    // Every record on the full disk is whole: read the current .open file as it stands.
    const warcs = path.join(dir, 'warcs');
    const open = fs.readdirSync(warcs).find((n) => n.endsWith('.open'));
    expect(open).toBeDefined();
    execFileSync('mount', ['-o', 'remount,size=64m', dir]);
    const final = await crawl.finished();
    expect(final.finishReason).toBe('frontier-empty');
    const check = await verifyCrawlDir(dir);
    expect(check.indexOnly).toEqual([]);
    expect(check.warcOnly).toEqual([]);
    const log = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8');
    for (let n = 0; n < 120; n++) {
      const url = `${site.origin}/p/${n}.html`;
      const why = `page ${n}: ${JSON.stringify({ final: { q: final.queued, d: final.downloaded, f: final.failed }, log: log.split('\n').filter((l) => l.includes(url + ' ')), recs: check.records.filter((r) => r.targetUri === url).map((r) => r.type + '@' + r.offset), messages })}`;
      expect(check.records.some((r) => r.type === 'response' && r.targetUri === url), why).toBe(true);
    }
  }, 60_000);

  it('pauses under --min-free-disk before the disk is full', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-minfree-'));
    mounts.push(dir);
    expect(tryMount(dir, '4m')).toBe(true);
    const crawl = await startCrawl({
      dir,
      settings: { seeds: [site.seed], concurrency: 2, perHost: 2, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 8 * 1024 * 1024, maxRetries: 0 },
    });
    while (crawl.state !== 'paused') await new Promise((r) => setTimeout(r, 20));
    expect(crawl.snapshot().message).toMatch(/MiB free/);
    execFileSync('mount', ['-o', 'remount,size=64m', dir]);
    const final = await crawl.finished();
    expect(final.finishReason).toBe('frontier-empty');
  }, 60_000);
});
