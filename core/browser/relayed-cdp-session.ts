/**
 * The crawl worker's side of the tab relay (protocol: tab-relay-protocol.ts): a TabSource whose
 * tabs' CdpSessions send commands and receive events over a MessagePort to the thread that owns
 * the real tabs (tab-relay-host.ts). In the app the crawl runs in a worker thread while
 * Electron's tabs, and their `webContents.debugger`, live in the main process; this is how the
 * worker drives tabs it does not own, with the same recorder and behaviors as the CLI.
 *
 * Closing the source closes the port; the host then closes every tab it opened for it.
 */
import type { MessagePort } from 'node:worker_threads';
import { TroveError } from '../errors.ts';
import type { CdpSession } from './cdp-session.ts';
import type { RelayDown, RelayUp } from './tab-relay-protocol.ts';
import type { SourceTab, TabSource } from './tab-source.ts';

type Listener = (params: any) => void;

class RelayedCdpSession implements CdpSession {
  readonly #relay: RelayedTabSource;
  readonly #tab: number;
  readonly listeners = new Map<string, Set<Listener>>();

  constructor(relay: RelayedTabSource, tab: number) {
    this.#relay = relay;
    this.#tab = tab;
  }

  send(method: string, params?: Record<string, unknown>): Promise<any> {
    return this.#relay.request((id) => ({ type: 'send', id, tab: this.#tab, method, ...(params ? { params } : {}) }));
  }

  on(event: string, listener: Listener): this {
    let set = this.listeners.get(event);
    if (!set) {
      this.listeners.set(event, (set = new Set()));
      this.#relay.post({ type: 'listen', tab: this.#tab, event });
    }
    set.add(listener);
    return this;
  }

  off(event: string, listener: Listener): this {
    const set = this.listeners.get(event);
    if (!set?.delete(listener) || set.size > 0) return this;
    this.listeners.delete(event);
    this.#relay.post({ type: 'unlisten', tab: this.#tab, event });
    return this;
  }
}

export class RelayedTabSource implements TabSource {
  readonly #port: MessagePort;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  readonly #sessions = new Map<number, RelayedCdpSession>();
  #nextId = 0;
  #closed = false;

  constructor(port: MessagePort) {
    this.#port = port;
    port.on('message', (m: RelayUp) => this.#receive(m));
    // The host went away (its thread ended, or it closed the port): nothing more will answer.
    port.on('close', () => this.#shut());
  }

  #receive(m: RelayUp): void {
    if (m.type === 'event') {
      for (const l of this.#sessions.get(m.tab)?.listeners.get(m.event) ?? []) l(m.params);
      return;
    }
    const p = this.#pending.get(m.id);
    if (!p) return;
    this.#pending.delete(m.id);
    if (m.type === 'failed') p.reject(new Error(m.message));
    else if (m.type === 'opened') p.resolve(m.tab);
    else p.resolve(m.result);
  }

  #shut(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const p of this.#pending.values()) p.reject(new TroveError('BROWSER_GONE', "the app's browser tabs are gone"));
    this.#pending.clear();
    this.#sessions.clear();
  }

  post(m: RelayDown): void {
    if (!this.#closed) this.#port.postMessage(m);
  }

  request(make: (id: number) => RelayDown): Promise<any> {
    if (this.#closed) return Promise.reject(new TroveError('BROWSER_CLOSED', "the crawl's browser is closed"));
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#port.postMessage(make(id));
    });
  }

  async open(): Promise<SourceTab> {
    const tab = (await this.request((id) => ({ type: 'open', id }))) as number;
    const session = new RelayedCdpSession(this, tab);
    this.#sessions.set(tab, session);
    return {
      session,
      close: async () => {
        this.#sessions.delete(tab);
        await this.request((id) => ({ type: 'close-tab', id, tab })).catch(() => {});
      },
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#shut();
    this.#port.close();
  }
}
