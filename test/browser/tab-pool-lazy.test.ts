/**
 * A lazy tab pool (`--capture auto`'s tabs, issue 35): its source (Chromium) starts only when a
 * page first asks for a tab, tabs open one by one as pages wait, up to the pool's size; a broken
 * tab is replaced when a page next asks; a source that fails to start fails the page that asked
 * and is tried again by the next; closing closes what was started; `startNow` starts it, with one
 * tab, before any page asks. The source here is a counting stand-in for Chromium (the pool is
 * what is tested; real Chromium tabs are the crawl tests').
 */
import { describe, expect, it, vi } from 'vitest';
import { TabPool } from '../../core/browser/tab-pool.ts';
import type { CdpSession } from '../../core/browser/cdp-session.ts';
import type { SourceTab, TabSource } from '../../core/browser/tab-source.ts';

function countingSource(failStarts = 0) {
  const c = { starts: 0, opened: 0, tabsClosed: 0, sourceClosed: 0 };
  let failures = failStarts;
  const start = async (): Promise<TabSource> => {
    c.starts++;
    if (failures-- > 0) throw new Error('no browser');
    return {
      async open(): Promise<SourceTab> {
        c.opened++;
        const session = { send: async () => ({}), on() {}, off() {} } as unknown as CdpSession;
        return { session, close: async () => void c.tabsClosed++ };
      },
      close: async () => void c.sourceClosed++,
    };
  };
  return { c, start };
}

describe('lazy tab pool', () => {
  it('starts nothing until a page asks, opens tabs as pages wait, up to its size', async () => {
    const { c, start } = countingSource();
    const pool = TabPool.lazy(start, 2);
    expect(c.starts).toBe(0);
    const a = await pool.acquire();
    expect([c.starts, c.opened]).toEqual([1, 1]);
    await pool.release(a);
    // A free tab is reused before another is opened.
    const a2 = await pool.acquire();
    expect(a2.id).toBe(a.id);
    expect(c.opened).toBe(1);
    const b = await pool.acquire();
    expect([c.starts, c.opened]).toEqual([1, 2]);
    // Two tabs out: the third page waits for one to come back.
    let third: number | null = null;
    const waiting = pool.acquire().then((t) => (third = t.id));
    await new Promise((r) => setTimeout(r, 0));
    expect(third).toBeNull();
    await pool.release(b);
    await waiting;
    expect(third).toBe(b.id);
    expect(c.opened).toBe(2);
    await pool.close();
    expect(c.sourceClosed).toBe(1);
  });

  it('replaces a broken tab when a page asks; a source that failed to start is tried again', async () => {
    const { c, start } = countingSource(1);
    const pool = TabPool.lazy(start, 1);
    await expect(pool.acquire()).rejects.toThrow('no browser');
    const a = await pool.acquire();
    expect(c.starts).toBe(2);
    const waiting = pool.acquire();
    await pool.release(a, { broken: true });
    const b = await waiting;
    expect(b.id).not.toBe(a.id);
    expect([c.opened, c.tabsClosed]).toEqual([2, 1]);
    await pool.close();
    expect(c.sourceClosed).toBe(1);
  });

  it('startNow: starts its browser and one tab before a page asks; the first page gets that tab, the next opens its own; a failed start is tried again', async () => {
    const { c, start } = countingSource();
    const pool = TabPool.lazy(start, 2, { startNow: true });
    await new Promise((r) => setTimeout(r, 0));
    expect([c.starts, c.opened]).toEqual([1, 1]);
    await pool.acquire();
    expect(c.opened).toBe(1);
    await pool.acquire();
    expect([c.starts, c.opened]).toEqual([1, 2]);
    await pool.close();
    const failing = countingSource(1);
    const pool2 = TabPool.lazy(failing.start, 2, { startNow: true });
    // Asked while the start is failing: the page starts the browser again and gets its tab.
    expect((await pool2.acquire()).id).toBe(1);
    expect(failing.c.starts).toBe(2);
    await pool2.close();
  });

  it('a pool no page asked of closes without starting its browser', async () => {
    const { c, start } = countingSource();
    await TabPool.lazy(start, 4).close();
    expect([c.starts, c.sourceClosed]).toEqual([0, 0]);
  });
});

describe('lazy tab pool, idle', () => {
  it('closes its browser once every tab has been idle idleCloseMs, and starts it again for the next page', async () => {
    vi.useFakeTimers();
    try {
      const { c, start } = countingSource();
      const pool = TabPool.lazy(start, 2, { idleCloseMs: 30_000 });
      const a = await pool.acquire();
      const b = await pool.acquire();
      await pool.release(a);
      // One tab still out: nothing is closed however long the other idles.
      await vi.advanceTimersByTimeAsync(60_000);
      expect(c.sourceClosed).toBe(0);
      await pool.release(b);
      await vi.advanceTimersByTimeAsync(29_000);
      expect(c.sourceClosed).toBe(0);
      // A page in time resets the count.
      await pool.release(await pool.acquire());
      await vi.advanceTimersByTimeAsync(29_000);
      expect(c.sourceClosed).toBe(0);
      await vi.advanceTimersByTimeAsync(1_000);
      expect([c.sourceClosed, c.tabsClosed]).toEqual([1, 2]);
      await pool.release(await pool.acquire());
      expect([c.starts, c.opened]).toEqual([2, 3]);
      await pool.close();
      expect(c.sourceClosed).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
