/**
 * A TroveApi for renderer tests: the real buildTroveApi over a transport that calls handlers the
 * test gives (payloads pass through structuredClone, as they would through IPC, so a Svelte
 * proxy sent by mistake fails the test).
 */
import { buildTroveApi, EVENT_NAMES, type EventName, type Events, type TroveApi } from '../../core/api/channels.ts';
import { COMMAND_NAMES, type CommandName, type Handlers } from '../../core/api/commands.ts';
import type { RecordPage, RecordSummary } from '../../core/api/app-types.ts';
import type { CrawlSnapshot } from '../../core/api/crawl-snapshot.ts';

export interface FakeApi {
  api: TroveApi;
  calls: { name: CommandName; payload: unknown }[];
  emit<E extends EventName>(name: E, payload: Events[E]): void;
}

export function fakeApi(handlers: Partial<Handlers>): FakeApi {
  const calls: FakeApi['calls'] = [];
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const api = buildTroveApi(COMMAND_NAMES, EVENT_NAMES, {
    async invoke(channel, payload) {
      const name = channel.slice('trove:'.length) as CommandName;
      const cloned = structuredClone(payload);
      calls.push({ name, payload: cloned });
      const h = handlers[name] as ((p: unknown) => unknown) | undefined;
      if (!h) return { ok: false, error: { code: 'NOT_AVAILABLE', message: `${name} not faked` } };
      try {
        return { ok: true, value: structuredClone(await h(cloned)) };
      } catch (err) {
        return { ok: false, error: { code: (err as { code?: string }).code ?? 'INTERNAL', message: (err as Error).message } };
      }
    },
    subscribe(channel, listener) {
      const set = listeners.get(channel) ?? new Set();
      listeners.set(channel, set);
      set.add(listener);
      return () => set.delete(listener);
    },
    pathForFile: () => null,
  });
  return {
    api,
    calls,
    emit(name, payload) {
      for (const l of listeners.get('trove:event:' + name) ?? []) l(payload);
    },
  };
}

/** Resolve after pending promise callbacks (and a macrotask) have run. */
export const tick = () => new Promise((r) => setTimeout(r, 0));

export const MILLION = 1_000_000;

export function row(id: number): RecordSummary {
  return {
    id, type: id % 3 === 1 ? 'response' : id % 3 === 2 ? 'request' : 'metadata', recordId: `<urn:uuid:${id}>`, url: `http://example.org/p/${id}`,
    ts: '20240101000000', date: null, mime: 'text/html', status: 200, method: null, length: 1000, contentLength: 900, payloadDigest: null,
    title: null, page: false, concurrentTo: null, refersTo: null, refersToUri: null, refersToDate: null, truncated: null, fileId: 1, file: 'a.warc.gz', offset: id * 1000,
  };
}

/** A keyset-paged archive of `n` records, made up on demand (ids 1..n). */
export function millionRows(n = MILLION) {
  return ({ limit, after }: { limit: number; after?: number }): RecordPage => {
    const start = (after ?? 0) + 1;
    const end = Math.min(n, start + limit - 1);
    const rows: RecordSummary[] = [];
    for (let id = start; id <= end; id++) rows.push(row(id));
    return { rows, next: end < n ? end : null, ...(after === undefined ? { total: n } : {}) };
  };
}


export function snapshot(over: Partial<CrawlSnapshot> = {}): CrawlSnapshot {
  return {
    name: 'c', dir: '/x', state: 'running', finishReason: null, message: null, startedAt: 0, elapsedMs: 1000, downloaded: 10, failed: 1,
    queued: 5, inFlight: 1, seen: 16, pages: 4, bytes: 4000, novelBytes: 3000, duplicateBytes: 1000, warcBytes: 5000, urisPerSec: 2,
    kbPerSec: 4, avgUrisPerSec: 2, avgKbPerSec: 4, statusCodes: { '200': 9, '-9998': 1 }, mimeTypes: { 'text/html': 4 },
    scopeRejections: { 'reject-all': 3, 'exclude-regex': 7 }, hosts: [], recent: [], traps: [], warcFiles: [], ...over,
  };
}

