/**
 * The worker thread behind the synchronous PostgreSQL frontier (postgres-frontier.ts): it owns
 * the store and its connection, runs one call at a time as the main thread sends them, and wakes
 * the main thread (blocked in Atomics.wait) once the reply is on the port. Calls written behind
 * (`completeLater`, `releaseSlotLater`) get no answer: completions that arrive together are sent
 * as one batch (store.completeMany), with the claim that follows them when there is one
 * (store.completeThenClaimMany), and what they could not do goes with the next answer.
 * Between calls its event loop stays free, so the store's heartbeat keeps the worker's leases
 * alive while the main thread is busy fetching.
 */
import { workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { openPostgresFrontierStore } from './postgres-frontier-store.ts';
import type { ClaimOptions, ClaimedUri } from './frontier.ts';
import type { CallStats, Completion, LateRefusal, PostgresFrontierOptions, PostgresFrontierStore } from './postgres-frontier-store-types.ts';

interface Call {
  /** 0: a call written behind (`completeLater`, `releaseSlotLater`), which gets no answer. */
  seq: number;
  method: string;
  args: unknown[];
}

const { port, flag, options } = workerData as { port: MessagePort; flag: Int32Array; options: PostgresFrontierOptions };
let store: PostgresFrontierStore | null = null;
/**
 * Calls run one at a time in the order they came (a completion written behind and the claim after
 * it must reach the database in that order); completions that came together go as one batch.
 */
const inbox: Call[] = [];
let draining = false;
/** What completions written behind could not do, sent with the next answer. */
let late: LateRefusal[] = [];

/** Per call (a batch of completions written behind as `completeMany`): how many, their round trips and time here, for the pg bench. */
const stats: Record<string, CallStats> = {};

async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const trips0 = store?.roundTrips() ?? 0;
  try {
    return await fn();
  } finally {
    const st = (stats[name] ??= { calls: 0, roundTrips: 0, ms: 0 });
    st.calls++;
    st.roundTrips += (store?.roundTrips() ?? 0) - trips0;
    st.ms += performance.now() - t0;
  }
}

function reply(seq: number, body: { value?: unknown; error?: unknown }): void {
  const refused = late;
  late = [];
  port.postMessage({ seq, ...body, ...(refused.length > 0 ? { late: refused } : {}) });
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

function serialiseError(err: unknown) {
  const e = err as { name?: string; message?: string; code?: string; details?: unknown };
  return { name: e?.name ?? 'Error', message: e?.message ?? String(err), code: e?.code, details: e?.details };
}

const completions = (batch: Call[]): Completion[] => batch.map(({ args: [uri, outcome, outlinks] }) => ({ uri, outcome, outlinks }) as Completion);

async function completeBatch(batch: Call[]): Promise<void> {
  const items = completions(batch);
  try {
    const errors = await timed('completeMany', () => store!.completeMany(items));
    errors.forEach((err, i) => err && late.push({ url: items[i]!.uri.url, error: serialiseError(err) }));
  } catch (err) {
    for (const it of items) late.push({ url: it.uri.url, error: serialiseError(err) });
  }
}

async function run({ seq, method, args }: Call): Promise<void> {
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
    if (method === 'callStats') {
      reply(seq, { value: stats });
      return;
    }
    const fn = (store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method];
    reply(seq, { value: await timed(method, () => fn!(...args)) });
  } catch (err) {
    reply(seq, { error: serialiseError(err) });
  }
}

/**
 * Completions written behind and the claim that came after them, sent together
 * (store.completeThenClaimMany: one round trip where both take their batch statements).
 */
async function completeThenClaim(batch: Call[], { seq, args }: Call): Promise<void> {
  const items = completions(batch);
  try {
    const { errors, claimed } = await timed('completeThenClaimMany', () => store!.completeThenClaimMany(items, ...(args as [number, number, ClaimOptions?])));
    errors.forEach((err, i) => err && late.push({ url: items[i]!.uri.url, error: serialiseError(err) }));
    reply(seq, claimed instanceof Error ? { error: serialiseError(claimed) } : { value: claimed });
  } catch (err) {
    // Not expected (the store reports each part's failure apart); then neither is known done.
    for (const it of items) late.push({ url: it.uri.url, error: serialiseError(err) });
    reply(seq, { error: serialiseError(err) });
  }
}

/** A slot given back behind (`releaseSlotLater`): no answer; a refusal goes with the next one. */
async function releaseLater({ args: [uri, queueReadyAt] }: Call): Promise<void> {
  try {
    await timed('releaseSlot', () => store!.releaseSlot(uri as ClaimedUri, queueReadyAt as number));
  } catch (err) {
    late.push({ url: (uri as ClaimedUri).url, error: serialiseError(err) });
  }
}

async function drain(): Promise<void> {
  draining = true;
  while (inbox.length > 0) {
    if (inbox[0]!.method === 'releaseSlotLater') {
      await releaseLater(inbox.shift()!);
      continue;
    }
    if (inbox[0]!.method !== 'completeLater') {
      await run(inbox.shift()!);
      continue;
    }
    let n = 0;
    while (n < inbox.length && inbox[n]!.method === 'completeLater') n++;
    if (inbox[n]?.method === 'claimMany') {
      const batch = inbox.splice(0, n);
      await completeThenClaim(batch, inbox.shift()!);
      continue;
    }
    await completeBatch(inbox.splice(0, n));
  }
  draining = false;
}

/**
 * A call that is waited for starts the inbox on the next turn (so a burst the main thread posted
 * at once is all in it first); calls written behind wait up to LATER_MS for more to join their
 * batch, since the call a crawl makes next (a claim for the freed slot) sends them anyway.
 */
const LATER_MS = 2;
let later: NodeJS.Timeout | undefined;
port.on('message', (call: Call) => {
  inbox.push(call);
  if (draining) return;
  if (call.seq === 0) {
    later ??= setTimeout(start, LATER_MS);
    return;
  }
  clearTimeout(later);
  later = undefined;
  draining = true;
  setImmediate(() => void drain());
});

function start(): void {
  later = undefined;
  if (draining) return;
  draining = true;
  void drain();
}
