import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExtractPool } from '../../core/extract/extract-pool.ts';
import { extractDocument } from '../../core/extract/extract-document.ts';
import type { DocumentInput } from '../../core/extract/extract-document.ts';
import { isTroveError } from '../../core/errors.ts';

function input(body: string | Buffer, over: Partial<DocumentInput> = {}): DocumentInput {
  return {
    url: 'http://site.test/page',
    status: 200,
    headers: [],
    mime: 'text/html',
    maxLinks: 1000,
    body: typeof body === 'string' ? Buffer.from(body) : body,
    ...over,
  };
}

let huge: Buffer | null = null;
/** About 30 MB of unique links: seconds of work, far past a short job limit. */
function hugePage(): Buffer {
  if (huge === null) {
    const parts: string[] = ['<html><body>'];
    for (let i = 0; i < 500_000; i++) parts.push(`<a href="/p/${i}">link number ${i}</a><img src="/i/${i}.png">`);
    huge = Buffer.from(parts.join(''));
  }
  return huge;
}

const pools: ExtractPool[] = [];
function pool(size: number, opts?: ConstructorParameters<typeof ExtractPool>[1]): ExtractPool {
  const p = new ExtractPool(size, opts);
  pools.push(p);
  return p;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('ExtractPool', () => {
  it('gives the same answer as extractDocument, for many jobs at once', async () => {
    const p = pool(2);
    const jobs = Array.from({ length: 20 }, (_, i) =>
      input(`<title>Page ${i}</title><a href="/next/${i}">n</a><img src="/img/${i}.png">`, {
        headers: [['Link', `</style${i}.css>; rel=stylesheet`]],
      }),
    );
    const results = await Promise.all(jobs.map((j) => p.run(j)));
    results.forEach((r, i) => {
      expect(r.error).toBeUndefined();
      expect(r).toEqual(extractDocument(jobs[i]!));
      expect(r.title).toBe(`Page ${i}`);
    });
  });

  it('leaves the caller its body buffer intact', async () => {
    const p = pool(1);
    const body = Buffer.from('<a href="/x">x</a>');
    const big = Buffer.alloc(100_000, 0x20);
    const view = big.subarray(10, 10 + body.length);
    body.copy(view);
    const r = await p.run(input(view));
    expect(r.outlinks.map((l) => l.url)).toEqual(['http://site.test/x']);
    expect(view.toString()).toBe('<a href="/x">x</a>');
    expect(big.length).toBe(100_000);
  });

  it('moves a handed-over body that fills its own buffer, and copies one that is a view', async () => {
    const p = pool(1);
    const page = '<a href="/moved">m</a>' + ' '.repeat(10_000);
    const own = Buffer.from(new TextEncoder().encode(page).buffer);
    expect(own.byteLength).toBe(own.buffer.byteLength);
    const r = await p.run(input(own), { handOver: true });
    expect(r.outlinks.map((l) => l.url)).toEqual(['http://site.test/moved']);
    expect(own.buffer.byteLength).toBe(0); // transferred: detached on this side
    const big = Buffer.alloc(100_000, 0x20);
    const view = big.subarray(10, 10 + page.length);
    view.write(page);
    const r2 = await p.run(input(view), { handOver: true });
    expect(r2.outlinks.map((l) => l.url)).toEqual(['http://site.test/moved']);
    expect(view.toString()).toBe(page);
    expect(big.length).toBe(100_000);
  });

  it('extracts a 100,000-deep document off the main thread', async () => {
    const p = pool(1);
    const depth = 100_000;
    const r = await p.run(input('<div>'.repeat(depth) + '<a href="/deep">d</a>' + '</div>'.repeat(depth)));
    expect(r.error).toBeUndefined();
    expect(r.outlinks.map((l) => l.url)).toEqual(['http://site.test/deep']);
  });

  it('times out a long job, restarts the worker, and keeps serving', async () => {
    const p = pool(1, { jobTimeoutMs: 250 });
    const slow = p.run(input(hugePage(), { maxLinks: 10_000_000 }));
    const queued = p.run(input('<a href="/after">a</a>'));
    const r = await slow;
    expect(r.error).toMatch(/timed out after 250 ms/);
    expect(r.outlinks).toEqual([]);
    expect(r.isHtml).toBe(true);
    const q = await queued;
    expect(q.error).toBeUndefined();
    expect(q.outlinks.map((l) => l.url)).toEqual(['http://site.test/after']);
    const again = await p.run(input('<a href="/again">a</a>'));
    expect(again.outlinks.map((l) => l.url)).toEqual(['http://site.test/again']);
  });

  it('resolves with an error when a worker runs out of memory, then keeps serving', async () => {
    const p = pool(1, { maxMemoryMb: 24 });
    const r = await p.run(input(hugePage(), { maxLinks: 10_000_000 }));
    expect(r.error).toMatch(/extraction worker died/);
    expect(r.outlinks).toEqual([]);
    const after = await p.run(input('<a href="/ok">ok</a>'));
    expect(after.error).toBeUndefined();
    expect(after.outlinks.map((l) => l.url)).toEqual(['http://site.test/ok']);
  });

  it('answers with an error, never hangs, when workers cannot start', async () => {
    const p = pool(1, { workerUrl: new URL('./no-such-worker.ts', import.meta.url) });
    const r = await p.run(input('<a href="/x">x</a>'));
    expect(r.error).toMatch(/cannot start/);
    expect(r.outlinks).toEqual([]);
    expect((await p.run(input('<a href="/y">y</a>'))).error).toMatch(/cannot start/);
  });

  it('rejects with EXTRACT_POOL_CLOSED after close, also for queued jobs', async () => {
    const p = pool(1, { jobTimeoutMs: 10_000 });
    const running = p.run(input(hugePage(), { maxLinks: 10_000_000 }));
    const queued = p.run(input('<a href="/q">q</a>'));
    const outcomes = [running, queued].map((job) =>
      job.then(
        () => null,
        (e: unknown) => e,
      ),
    );
    await new Promise((r) => setTimeout(r, 50));
    await p.close();
    for (const err of await Promise.all(outcomes)) expect(isTroveError(err, 'EXTRACT_POOL_CLOSED')).toBe(true);
    await expect(p.run(input('<a href="/x">x</a>'))).rejects.toMatchObject({ code: 'EXTRACT_POOL_CLOSED' });
  });
});

describe('ExtractPool with documents taken inline (issue 20)', () => {
  const page = (i: number) =>
    input(`<title>Page ${i}</title><a href="/next/${i}">n</a><img src="/img/${i}.png"><style>b{background:url(/bg${i}.png)}</style>`, {
      headers: [['Link', `</style${i}.css>; rel=stylesheet`]],
    });

  it('extracts documents up to inlineMaxBytes on the calling thread, with extractDocument\'s answer, and starts no worker', async () => {
    const p = pool(2, { inlineMaxBytes: 4096 });
    const jobs = Array.from({ length: 20 }, (_, i) => page(i));
    const results = await Promise.all(jobs.map((j) => p.run(j)));
    results.forEach((r, i) => expect(r).toEqual(extractDocument(jobs[i]!)));
    expect(p.workers).toBe(0);
  });

  it('frees a handed-over body once extracted inline, and leaves one that is not handed over', async () => {
    const p = pool(1, { inlineMaxBytes: 1 << 20 });
    const html = `<a href="/x">x</a>${' '.repeat(8192)}`;
    const own = Buffer.alloc(html.length); // a buffer of its own (Buffer.from may view a shared slab)
    own.write(html);
    const kept = Buffer.from(own);
    const expected = extractDocument(input(Buffer.from(own)));
    expect(await p.run(input(own), { handOver: true })).toEqual(expected);
    expect(own.buffer.byteLength).toBe(0);
    expect(await p.run(input(kept))).toEqual(expected);
    expect(kept.length).toBe(8192 + 18);
  });

  it('sends a larger document to a worker, started for it, and stops the worker after idleMs without one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const p = pool(1, { inlineMaxBytes: 64, idleMs: 1000 });
      const small = page(1);
      const big = page(2);
      expect(small.body.length).toBeGreaterThan(64); // both are over the limit here
      const tiny = input('<a href="/t">t</a>');
      expect(await p.run(tiny)).toEqual(extractDocument(tiny));
      expect(p.workers).toBe(0);
      expect(await p.run(big)).toEqual(extractDocument(big));
      expect(p.workers).toBe(1);
      vi.advanceTimersByTime(999);
      expect(p.workers).toBe(1);
      vi.advanceTimersByTime(1);
      expect(p.workers).toBe(0);
      // The next large document starts a worker again.
      expect(await p.run(small)).toEqual(extractDocument(small));
      expect(p.workers).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the time limit for documents sent to a worker', async () => {
    const p = pool(1, { inlineMaxBytes: 1024, jobTimeoutMs: 50 });
    const r = await p.run(input(hugePage(), { maxLinks: 10_000_000 }));
    expect(r.error).toMatch(/timed out/);
    const after = page(3);
    expect(await p.run(after)).toEqual(extractDocument(after));
  });
});
