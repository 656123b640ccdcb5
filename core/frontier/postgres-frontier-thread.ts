/**
 * The worker thread behind the synchronous PostgreSQL frontier (postgres-frontier.ts): it owns
 * the store and its connection, runs one call at a time as the main thread sends them, and wakes
 * the main thread (blocked in Atomics.wait) once the reply is on the port. Between calls its
 * event loop stays free, so the store's heartbeat keeps the worker's leases alive while the main
 * thread is busy fetching.
 */
import { workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { openPostgresFrontierStore } from './postgres-frontier-store.ts';
import type { PostgresFrontierOptions, PostgresFrontierStore } from './postgres-frontier-store-types.ts';

interface Call {
  seq: number;
  method: string;
  args: unknown[];
}

const { port, flag, options } = workerData as { port: MessagePort; flag: Int32Array; options: PostgresFrontierOptions };
let store: PostgresFrontierStore | null = null;

function reply(seq: number, body: { value?: unknown; error?: unknown }): void {
  port.postMessage({ seq, ...body });
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

function serialiseError(err: unknown) {
  const e = err as { name?: string; message?: string; code?: string; details?: unknown };
  return { name: e?.name ?? 'Error', message: e?.message ?? String(err), code: e?.code, details: e?.details };
}

port.on('message', async ({ seq, method, args }: Call) => {
  try {
    if (method === 'open') {
      store = await openPostgresFrontierStore(options);
      reply(seq, { value: store.worker });
      return;
    }
    if (method === 'close') {
      await store?.close();
      store = null;
      reply(seq, { value: undefined });
      port.close();
      return;
    }
    const fn = (store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method];
    reply(seq, { value: await fn!(...args) });
  } catch (err) {
    reply(seq, { error: serialiseError(err) });
  }
});
