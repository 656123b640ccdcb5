/**
 * A minimal crawl worker for the multi-process PostgreSQL frontier test: claims from the shared
 * frontier, fetches over HTTP, gives the queue slot back with the politeness delay as soon as the
 * response is in, and completes with the links the page lists (one URL per line). Run with plain
 * node (no vitest): `node postgres-worker-child.ts <url> <crawl> <name> <delayMs> <active>`.
 * It exits 0 when the crawl has nothing left for it and nothing in flight anywhere.
 */
import { createPostgresFrontier } from '../../core/frontier/postgres-frontier.ts';
import type { Candidate, ClaimedUri } from '../../core/frontier/frontier.ts';

export function candidateFor(u: string, via: string | null): Candidate {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < u.length; i++) h = ((h ^ BigInt(u.charCodeAt(i))) * 0x100000001b3n) & 0xffffffffffffffffn;
  return { url: u, canonical: u, fingerprint: h, queueKey: new URL(u).host, hopsPath: via ? 'L' : '', via };
}

if (import.meta.main) await main();

async function main(): Promise<void> {
  const [url, crawl, name, delayArg, activeArg] = process.argv.slice(2);
  const delayMs = Number(delayArg);
  const maxActive = Number(activeArg);
  const f = createPostgresFrontier({ url: url!, crawl: crawl!, worker: name, leaseMs: 1500 });
  let active = 0;
  async function fetchOne(uri: ClaimedUri): Promise<void> {
    try {
      const res = await fetch(uri.url);
      const body = await res.text();
      f.releaseSlot(uri, Date.now() + delayMs);
      const links = body.split('\n').filter((l) => l.startsWith('http://')).map((l) => candidateFor(l, uri.url));
      f.complete(uri, { status: res.status, queueReadyAt: Date.now() + delayMs }, links);
      process.stdout.write(`done ${uri.url}\n`);
    } catch (err) {
      f.complete(uri, { status: -2, queueReadyAt: Date.now() + delayMs, note: String(err) });
    } finally {
      active--;
    }
  }

  for (;;) {
    if (active < maxActive) {
      const uri = f.claim(Date.now());
      if (uri) {
        active++;
        void fetchOne(uri);
        continue;
      }
    }
    const next = active > 0 ? Date.now() + 5 : f.nextReadyAt();
    if (next === null) break;
    await new Promise((r) => setTimeout(r, Math.min(50, Math.max(2, next - Date.now()))));
  }
  f.close();
}
