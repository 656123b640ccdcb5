/**
 * The PostgreSQL frontier against a real, throw-away PostgreSQL server (test/helpers/postgres-server.ts):
 * the same contract as the SQLite frontier, then what only a shared frontier has: two frontiers
 * (two workers) on one crawl. Times are synthetic (`clock: 'caller'`) except in the test of the
 * database clock, which checks only that a worker's wrong clock does not move the shared times.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresFrontier } from '../../core/frontier/postgres-frontier.ts';
import type { PostgresFrontier, PostgresFrontierOptions } from '../../core/frontier/postgres-frontier.ts';
import { startTestPostgres } from '../helpers/postgres-server.ts';
import { cand, frontierContract } from './frontier-contract.ts';
import type { FrontierHarness } from './frontier-contract.ts';

const server = await startTestPostgres();
const skip = typeof server === 'string' ? server : null;
if (skip) console.warn(`PostgreSQL frontier tests skipped: ${skip}`);
afterAll(async () => {
  if (typeof server !== 'string') await server.stop();
});

function open(crawl: string, extra: Partial<PostgresFrontierOptions> = {}): PostgresFrontier {
  if (typeof server === 'string') throw new Error(server);
  return createPostgresFrontier({ url: server.url, crawl, clock: 'caller', worker: 'w1', ...extra });
}

if (skip) {
  describe.skip(`PostgreSQL frontier (${skip})`, () => it('needs a server', () => {}));
} else {
  const pg = server as Exclude<typeof server, string>;

  frontierContract('PostgreSQL', (opts) => {
    const crawl = pg.freshSchema('contract');
    const h: FrontierHarness & { frontier: PostgresFrontier } = {
      frontier: open(crawl, opts),
      reopen() {
        h.frontier.close(); // leases stay in the database, as after kill -9
        h.frontier = open(crawl, opts);
        return h.frontier;
      },
      close: () => h.frontier.close(),
    };
    return h;
  });

  describe('PostgreSQL frontier shared by two workers', () => {
    const pair = (opts: Partial<PostgresFrontierOptions> = {}) => {
      const crawl = pg.freshSchema('shared');
      const a = open(crawl, { worker: 'a', leaseMs: 1000, ...opts });
      const b = open(crawl, { worker: 'b', leaseMs: 1000, ...opts });
      return { a, b, close: () => (a.close(), b.close()) };
    };

    it('holds a page limit across workers: a page slot is taken in the claim, counted at completion, and given back by a non-page', () => {
      const { a, b, close } = pair({ pageLimit: 2 });
      try {
        a.schedule([cand('http://x.test/p', { hopsPath: 'L' }), cand('http://y.test/p', { hopsPath: 'L' }), cand('http://z.test/p', { hopsPath: 'L' }), cand('http://zz.test/logo.png', { hopsPath: 'LE' })]);
        const ux = a.claim(0)!;
        const uy = b.claim(0)!;
        expect([ux.url, uy.url]).toEqual(['http://x.test/p', 'http://y.test/p']);
        // Two slots held crawl-wide: neither worker may claim a third page, embeds still go out.
        expect(a.pagesOpen()).toBe(false);
        expect(b.pagesOpen()).toBe(false);
        const logo = a.claim(0)!;
        expect(logo.url).toBe('http://zz.test/logo.png');
        a.complete(logo, { status: 200, queueReadyAt: 0 });
        expect(a.claim(0)).toBeNull();
        // y turned out not to be a page (a 404): its slot comes back, and a takes z.
        b.complete(uy, { status: 404, queueReadyAt: 0, page: false });
        expect(a.pagesOpen()).toBe(true);
        const uz = a.claim(0)!;
        expect(uz.url).toBe('http://z.test/p');
        a.complete(ux, { status: 200, queueReadyAt: 0, page: true });
        a.complete(uz, { status: 200, queueReadyAt: 0, page: true });
        expect(b.pagesOpen()).toBe(false);
        b.schedule([cand('http://x.test/q', { hopsPath: 'LL' })]);
        expect(b.claim(0)).toBeNull();
        expect(b.nextReadyAt({ pages: false })).toBeNull();
      } finally {
        close();
      }
    });

    it('a dead worker\'s page slots go back with its leases', () => {
      const { a, b, close } = pair({ pageLimit: 1 });
      try {
        a.schedule([cand('http://x.test/p', { hopsPath: 'L' }), cand('http://y.test/p', { hopsPath: 'L' })]);
        expect(a.claim(0)!.url).toBe('http://x.test/p');
        expect(b.claim(10)).toBeNull(); // the one slot is a's
        // a stops heartbeating; past its lease b puts x back and, the slot free again, claims a page.
        const u = b.claim(1001)!;
        expect(u.hopsPath).toBe('L');
        b.complete(u, { status: 200, queueReadyAt: 1001, page: true });
        expect(b.pagesOpen()).toBe(false);
        expect(b.claim(1002)).toBeNull();
      } finally {
        close();
      }
    });

    it('the crawl\'s control row: paused or stopped, no worker claims; running again, they do', () => {
      const { a, b, close } = pair();
      try {
        a.schedule([cand('http://x.test/1'), cand('http://y.test/1'), cand('http://z.test/1')]);
        const u = a.claim(0)!;
        b.setControl('paused');
        expect(a.control().control).toBe('paused');
        expect(a.claim(0)).toBeNull();
        expect(b.claim(0)).toBeNull();
        a.complete(u, { status: 200, queueReadyAt: 0 }); // in flight finishes
        b.setControl('stopped');
        expect(b.claim(0)).toBeNull();
        expect(a.report({ state: 'stopping', downloaded: 1, failed: 0, pages: 1, bytes: 10, warcBytes: 20, urisPerSec: 1.5, kbPerSec: 0, warcFiles: 1, dir: '/a' })).toBe('stopped');
        b.setControl('running');
        expect(b.claim(0)).not.toBeNull();
        expect(() => a.setControl('gone' as 'running')).toThrow(expect.objectContaining({ code: 'SETTINGS_INVALID' }));
      } finally {
        close();
      }
    });

    it('every worker sees every worker: host, heartbeat, leases and its last report, kept after it leaves', () => {
      const { a, b, close } = pair();
      try {
        a.schedule([cand('http://x.test/1')]);
        a.claim(0);
        a.heartbeat(500);
        a.report({ state: 'running', downloaded: 7, failed: 1, pages: 5, bytes: 1000, warcBytes: 900, urisPerSec: 2.5, kbPerSec: 1, warcFiles: 1, dir: '/crawl/a' });
        const rows = b.workers();
        expect(rows.map((w) => w.name)).toEqual(['a', 'b']);
        expect(rows[0]).toMatchObject({ leases: 1, heartbeatAt: 500, leaseUntil: 1500, report: { downloaded: 7, urisPerSec: 2.5, dir: '/crawl/a' } });
        expect(rows[0]!.host).toBeTruthy();
        expect(rows[1]!.report).toBeNull();
        b.report({ state: 'finished', downloaded: 3, failed: 0, pages: 3, bytes: 10, warcBytes: 20, urisPerSec: 0, kbPerSec: 0, warcFiles: 1, dir: '/crawl/b' });
        b.close();
        expect(a.workers().map((w) => w.name)).toEqual(['a']);
        expect(a.reports().map((r) => [r.name, r.stats.downloaded])).toEqual([['a', 7], ['b', 3]]);
      } finally {
        a.close();
        close();
      }
    });

    it('leases a queue to one worker at a time', () => {
      const { a, b, close } = pair({ defaultMaxInFlight: 2 });
      try {
        a.schedule([1, 2, 3].map((i) => cand(`http://x.test/${i}`)).concat([cand('http://y.test/1')]));
        const u = a.claim(0)!;
        expect(u.queueKey).toBe('x.test');
        // x.test has a free slot but is leased to a: b gets y.test, then nothing.
        expect(b.claim(0)!.queueKey).toBe('y.test');
        expect(b.claim(0)).toBeNull();
        expect(a.claim(0)!.queueKey).toBe('x.test'); // a's second slot
        expect(b.workers().map((w) => [w.name, w.leases])).toEqual([['a', 2], ['b', 1]]);
        // b is told to look again by a's lease expiry, not that the crawl is over.
        expect(b.nextReadyAt()).toBe(1000);
      } finally {
        close();
      }
    });

    it('frees the queue for another worker once its last slot is given back', () => {
      const { a, b, close } = pair();
      try {
        a.schedule([cand('http://x.test/1'), cand('http://x.test/2')]);
        const u = a.claim(0)!;
        expect(b.claim(0)).toBeNull();
        a.complete(u, { status: 200, queueReadyAt: 10 });
        expect(b.claim(9)).toBeNull(); // a's politeness delay is in the queue row
        expect(b.nextReadyAt()).toBe(10);
        expect(b.claim(10)!.url).toBe('http://x.test/2');
      } finally {
        close();
      }
    });

    it('holds the politeness delay set at releaseSlot across workers', () => {
      const { a, b, close } = pair();
      try {
        a.schedule([cand('http://x.test/1'), cand('http://x.test/2')]);
        const u = a.claim(0)!;
        a.releaseSlot(u, 50);
        expect(b.claim(49)).toBeNull();
        expect(b.claim(50)!.url).toBe('http://x.test/2');
        a.complete(u, { status: 200, queueReadyAt: 60 });
        expect(a.queue('x.test', 60)).toMatchObject({ inFlight: 1, done: 1, readyAt: 60 });
      } finally {
        close();
      }
    });

    it('a dead worker\'s leases expire and its URIs go to another, which finishes them once', () => {
      const { a, b, close } = pair();
      try {
        a.schedule([cand('http://x.test/1'), cand('http://y.test/1')]);
        const ux = a.claim(0)!;
        const uy = a.claim(0)!;
        a.complete(uy, { status: 200, queueReadyAt: 0 });
        // a stops heartbeating (its claims renew its lease to 0 + 1000)
        expect(b.claim(999)).toBeNull();
        const taken = b.claim(1001)!;
        expect(taken).toMatchObject({ id: ux.id, url: 'http://x.test/1', attempts: 0 });
        expect(b.workers().map((w) => w.name)).toEqual(['b']);
        // a's late answer for a URI it no longer holds is refused, b's counts
        expect(() => a.complete(ux, { status: 200, queueReadyAt: 0 })).toThrow(expect.objectContaining({ code: 'FRONTIER_NOT_IN_FLIGHT' }));
        b.complete(taken, { status: 200, queueReadyAt: 0 });
        expect(b.counts(1001)).toMatchObject({ done: 2, inFlight: 0, pending: 0 });
      } finally {
        close();
      }
    });

    it('two workers claiming at once never exceed a queue\'s slots and never get the same URI', async () => {
      const { a, b, close } = pair({ defaultMaxInFlight: 1 });
      try {
        const hosts = Array.from({ length: 6 }, (_, i) => `h${i}.test`);
        a.schedule(hosts.flatMap((h) => [1, 2, 3, 4].map((i) => cand(`http://${h}/${i}`))));
        const got = new Set<number>();
        let t = 0;
        for (let round = 0; round < 40; round++) {
          t += 10;
          const ua = a.claim(t);
          const ub = b.claim(t);
          const held = [ua, ub].filter((u) => u !== null);
          expect(new Set(held.map((u) => u!.queueKey)).size).toBe(held.length);
          for (const u of held) {
            expect(got.has(u!.id)).toBe(false);
            got.add(u!.id);
          }
          if (ua) a.complete(ua, { status: 200, queueReadyAt: t + 5 });
          if (ub) b.complete(ub, { status: 200, queueReadyAt: t + 5 }, [cand(`http://${ub.queueKey}/from-b-${round}`)]);
        }
        const c = a.counts(t);
        expect(c.done).toBe(got.size);
        expect(c.pending + c.done).toBe(c.seen);
      } finally {
        close();
      }
    });

    it.skipIf(!pg.restart)('a database restart pauses a worker, which carries on when the server is back', () => {
      const { a, b, close } = pair();
      try {
        a.schedule([cand('http://x.test/1'), cand('http://y.test/1')]);
        const u = a.claim(0)!;
        pg.restart!();
        a.complete(u, { status: 200, queueReadyAt: 0 }); // reconnects, then commits
        expect(b.claim(0)!.url).toBe('http://y.test/1');
        expect(b.counts(0)).toMatchObject({ done: 1, inFlight: 1, pending: 0 });
      } finally {
        close();
      }
    });

    it('with the database clock, a worker whose clock is an hour off keeps delays on the shared clock', () => {
      const crawl = pg.freshSchema('clock');
      const a = open(crawl, { worker: 'a', clock: 'database' });
      const b = open(crawl, { worker: 'b', clock: 'database' });
      try {
        const hour = 3_600_000;
        a.schedule([cand('http://x.test/1'), cand('http://x.test/2')]);
        // Both workers read their own clocks; b's is an hour fast. Each passes times on its clock.
        const u = a.claim(Date.now())!;
        a.complete(u, { status: 200, queueReadyAt: Date.now() + hour / 2 });
        expect(b.claim(Date.now() + hour)).not.toBeNull(); // b's "now" is an hour ahead; a's delay was 30 min
        // Seen from a's clock (the true one), the queue's readyAt is about half an hour ahead.
        const seen = a.queue('x.test')!.readyAt - Date.now();
        expect(seen).toBeGreaterThan(hour / 2 - 60_000);
        expect(seen).toBeLessThan(hour / 2 + 60_000);
      } finally {
        a.close();
        b.close();
      }
    });
  });

  describe('a worker\'s batches: claimMany and completions written behind', () => {
    it('claims one URI from each of up to max queues, ready longest first, and nothing while the crawl is paused', () => {
      const f = open(pg.freshSchema('many'));
      try {
        f.schedule(['x', 'y', 'z'].flatMap((h) => [cand(`http://${h}.test/1`), cand(`http://${h}.test/2`)]));
        f.setQueueReadyAt('x.test', 5);
        f.setControl('paused');
        expect(f.claimMany(10, 8)).toEqual([]);
        f.setControl('running');
        expect(f.claimMany(3, 8).map((u) => u.url)).toEqual(['http://y.test/1', 'http://z.test/1']); // x not ready before 5
        expect(f.claimMany(10, 8).map((u) => u.url)).toEqual(['http://x.test/1']); // y and z hold their one slot each
        expect(f.counts(10)).toMatchObject({ inFlight: 3, pending: 3 });
      } finally {
        f.close();
      }
    });

    it('writes completions behind: the next call sees them, a refused one is reported late and the rest of its batch still counts', () => {
      const crawl = pg.freshSchema('behind');
      const a = open(crawl, { worker: 'a', leaseMs: 1000, writeBehind: true });
      const b = open(crawl, { worker: 'b', leaseMs: 1000 });
      try {
        a.schedule([cand('http://x.test/1'), cand('http://y.test/1'), cand('http://z.test/1')]);
        const [ux] = a.claimMany(0, 3);
        // a stops heartbeating; once its lease (renewed to 0 + 1000) has run out, b's claim puts
        // a's three URIs back and takes x; a, back, claims y and z again.
        expect(b.claim(1001)).toMatchObject({ id: ux!.id });
        const [uy, uz] = a.claimMany(1001, 3);
        expect([uy!.url, uz!.url]).toEqual(['http://y.test/1', 'http://z.test/1']);
        a.complete(ux!, { status: 200, queueReadyAt: 0 }); // refused: no longer a's
        a.complete(uy!, { status: 200, queueReadyAt: 0 }, [cand('http://y.test/2')]);
        a.complete(uy!, { status: 200, queueReadyAt: 0 }); // the same URI twice: the second is refused
        a.complete(uz!, { status: -2, queueReadyAt: 0 });
        expect(a.counts(1001)).toMatchObject({ done: 1, failed: 1, pending: 1, inFlight: 1 });
        expect(a.lateRefusals().map((r) => r.url)).toEqual(['http://x.test/1', 'http://y.test/1']);
        expect(a.lateRefusals()).toEqual([]);
        expect(a.queue('y.test', 1001)).toMatchObject({ inFlight: 0, done: 1, pending: 1 });
      } finally {
        a.close();
        b.close();
      }
    });

    it('sends completions written behind with the claim after them in one round trip: the claim takes the slot they freed, a refused one is still reported', () => {
      const crawl = pg.freshSchema('together');
      const a = open(crawl, { worker: 'a', leaseMs: 1000, writeBehind: true });
      const b = open(crawl, { worker: 'b', leaseMs: 1000 });
      try {
        a.schedule(['x', 'y'].flatMap((h) => [cand(`http://${h}.test/1`), cand(`http://${h}.test/2`)]));
        a.schedule([cand('http://y.test/1')]); // seen already; a now knows y's queue id, so an outlink to y needs no look-up
        const [ux] = a.claimMany(0, 2);
        // a's lease ran out: b puts a's URIs back and takes x; a claims y again.
        expect(b.claim(1001)).toMatchObject({ id: ux!.id });
        const [uy] = a.claimMany(1001, 2);
        expect(uy!.url).toBe('http://y.test/1');
        const before = a.callStats();
        a.complete(ux!, { status: 200, queueReadyAt: 0 }); // refused: no longer a's
        a.complete(uy!, { status: 200, queueReadyAt: 0 }, [cand('http://y.test/3')]);
        // y's slot given back by the completion, seen by the claim in the same trip.
        expect(a.claimMany(1001, 1).map((u) => u.url)).toEqual(['http://y.test/2']); // one slot: the batch statement all the same
        const after = a.callStats();
        expect(after.completeThenClaimMany!.calls - (before.completeThenClaimMany?.calls ?? 0)).toBe(1);
        expect(after.completeThenClaimMany!.roundTrips - (before.completeThenClaimMany?.roundTrips ?? 0)).toBe(1);
        expect(a.lateRefusals().map((r) => r.url)).toEqual(['http://x.test/1']);
        expect(a.counts(1001)).toMatchObject({ done: 1, inFlight: 2, pending: 2 });
        expect(a.queue('y.test', 1001)).toMatchObject({ inFlight: 1, done: 1, pending: 1 });
      } finally {
        a.close();
        b.close();
      }
    });

    it('gives slots back behind: the queue is ready at the time given, and its next claim waits for it', () => {
      const a = open(pg.freshSchema('releasebehind'), { worker: 'a', writeBehind: true });
      try {
        a.schedule([cand('http://x.test/1'), cand('http://x.test/2')]);
        const [u1] = a.claimMany(0, 2);
        a.releaseSlot(u1!, 50);
        expect(a.claimMany(49, 2)).toEqual([]);
        expect(a.queue('x.test', 49)).toMatchObject({ inFlight: 0, readyAt: 50 });
        a.complete(u1!, { status: 200, queueReadyAt: 0 });
        expect(a.claimMany(50, 2).map((u) => u.url)).toEqual(['http://x.test/2']);
        expect(a.counts(50)).toMatchObject({ done: 1, inFlight: 1 });
        expect(a.lateRefusals()).toEqual([]);
      } finally {
        a.close();
      }
    });

    it('sends completions written behind before it closes', () => {
      const crawl = pg.freshSchema('behindclose');
      const a = open(crawl, { worker: 'a', writeBehind: true });
      a.schedule([cand('http://x.test/1'), cand('http://y.test/1')]);
      for (const u of a.claimMany(0, 2)) a.complete(u, { status: 200, queueReadyAt: 0 });
      a.close();
      const b = open(crawl, { worker: 'b' });
      try {
        expect(b.counts(0)).toMatchObject({ done: 2, inFlight: 0 });
      } finally {
        b.close();
      }
    });
  });
}
