/**
 * A child target of a tab (a cross-site iframe running in its own renderer process under site
 * isolation, a dedicated worker) as a CdpSession of its own. The tab's session does not see the
 * requests such a target makes, so the recorder attaches to each one (Target.setAutoAttach) and
 * records it the same way.
 *
 * Why the non-flattened protocol (Target.sendMessageToTarget / receivedMessageFromTarget): it
 * goes through the parent session's own send/on, so it works over any CdpSession, playwright's
 * CDPSession and Electron's debugger alike; the flattened protocol needs a sessionId on every
 * command, which neither CdpSession nor playwright's CDPSession.send can carry.
 */
import type { CdpSession } from './cdp-session.ts';

export class TargetSession implements CdpSession {
  readonly sessionId: string;
  readonly #parent: CdpSession;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  readonly #listeners = new Map<string, Set<(params: any) => void>>();
  #nextId = 0;
  #detached = false;

  constructor(parent: CdpSession, sessionId: string) {
    this.#parent = parent;
    this.sessionId = sessionId;
  }

  /** A message from Target.receivedMessageFromTarget for this session. */
  receive(message: string): void {
    let m: { id?: number; method?: string; params?: unknown; result?: unknown; error?: { message?: string } };
    try {
      m = JSON.parse(message);
    } catch {
      return;
    }
    if (typeof m.id === 'number') {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (m.error) p.reject(new Error(m.error.message ?? 'CDP error'));
      else p.resolve(m.result);
    } else if (m.method) {
      for (const l of this.#listeners.get(m.method) ?? []) l(m.params);
    }
  }

  /** The target went away: every command still waiting fails. */
  detached(): void {
    this.#detached = true;
    for (const p of this.#pending.values()) p.reject(new Error('target detached'));
    this.#pending.clear();
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<any> {
    if (this.#detached) return Promise.reject(new Error('target detached'));
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#parent.send('Target.sendMessageToTarget', { sessionId: this.sessionId, message: JSON.stringify({ id, method, params }) }).catch((err: Error) => {
        this.#pending.delete(id);
        reject(err);
      });
    });
  }

  on(event: string, listener: (params: any) => void): this {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener);
    return this;
  }

  off(event: string, listener: (params: any) => void): this {
    this.#listeners.get(event)?.delete(listener);
    return this;
  }
}
