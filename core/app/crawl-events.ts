/**
 * What the app does with a crawl worker's events (crawl-runner.ts): each goes up as an event of
 * the window, and the live snapshot is also saved into the library entry now and then, so a
 * crash still leaves recent counts; kept out of app-service.ts so its wiring reads short.
 */
import type { Emit } from '../api/channels.ts';
import type { RunnerEvent } from './crawl-runner.ts';
import type { Library } from './library.ts';

/** Persist the live snapshot this often, so a crash still leaves recent counts for the library. */
const SNAPSHOT_SAVE_MS = 5_000;

/** The runner's `onEvent` for a library: emits each event and saves snapshots into the entries. */
export function crawlEventSink(library: Library, emit: Emit): (id: string, e: RunnerEvent) => void {
  const lastSaved = new Map<string, number>();

  function saveSnapshot(id: string, snapshot: Parameters<Library['writeSnapshot']>[1]): void {
    try {
      library.writeSnapshot(id, snapshot);
    } catch {
      /* the directory may be gone (deleted while stopping) */
    }
  }

  return (id, e) => {
    switch (e.type) {
      case 'snapshot': {
        emit('crawl.snapshot', { id, snapshot: e.snapshot });
        const now = Date.now();
        if (now - (lastSaved.get(id) ?? 0) >= SNAPSHOT_SAVE_MS) {
          lastSaved.set(id, now);
          saveSnapshot(id, e.snapshot);
        }
        break;
      }
      case 'state':
        emit('crawl.state', { id, state: e.state, reason: e.reason, message: e.message });
        break;
      case 'log':
        emit('crawl.log', { id, level: e.level, code: e.code, message: e.message });
        break;
      case 'exit':
        lastSaved.delete(id);
        if (e.snapshot) saveSnapshot(id, e.error ? { ...e.snapshot, state: 'failed', message: e.error } : e.snapshot);
        if (e.error) {
          emit('crawl.log', { id, level: 'error', code: 'CRAWL_FAILED', message: e.error });
          emit('crawl.state', { id, state: 'failed', reason: 'error', message: e.error });
        }
        emit('library.changed', { id });
        break;
    }
  };
}
