/**
 * Records the bytes a socket sends and receives, exactly, for whichever request currently owns
 * it. Written by hand because undici exposes decoded bodies and parsed headers but never the
 * wire bytes, and a WARC record must hold those.
 *
 * How, verified against undici 8's lib/dispatcher/client-h1.js:
 * - Received bytes: Node's stream layer hands every chunk read from the handle (TCP, or the
 *   decrypted TLS stream) to the socket's `push()`. We wrap `push` on the instance. undici reads
 *   with `socket.read()` from the 'readable' event and, when its parser pauses, puts bytes back
 *   with `socket.unshift()`, which does not go through `push`, so nothing is seen twice. The tap
 *   sees bytes before undici parses them.
 * - Sent bytes: undici writes each request head with one `socket.write(head, 'latin1')`; we wrap
 *   `write` on the instance.
 * - Ownership: undici calls the request handler's `onRequestStart` synchronously inside writeH1,
 *   immediately before writing the head on the socket it chose. The handler offers its
 *   recording to the ClaimSlot there, and the next write on any tapped socket (which, in that
 *   same synchronous call, is this request's head) takes it. With pipelining 1 there is one
 *   request in flight per socket, so the bytes received until that request's message ends are
 *   its response. Bytes arriving while no request owns the socket are not recorded.
 */
import type { Socket } from 'node:net';

/** What a tapped socket reports to the request that owns it. */
export interface WireRecorder {
  /** The socket was claimed by this recording (once, before any bytes). */
  attached(info: { remoteAddress: string | null; reused: boolean }): void;
  /** Bytes written by undici for this request. */
  sent(chunk: Buffer): void;
  /** Bytes received. Returns false when the recording wants no more (message ended). */
  received(chunk: Buffer): boolean;
  /** The peer closed its side (EOF). */
  ended(): void;
}

/** Hands a recording from a request handler to the socket undici writes that request on. */
export class ClaimSlot {
  #pending: WireRecorder | null = null;

  /** Offer a recording; it is taken by the next request-head write on a tapped socket. */
  offer(recorder: WireRecorder): void {
    this.#pending = recorder;
    // The write follows synchronously; an offer still here a microtask later was not written
    // (the request was aborted in between) and must not be taken by someone else's write.
    queueMicrotask(() => {
      if (this.#pending === recorder) this.#pending = null;
    });
  }

  take(): WireRecorder | null {
    const r = this.#pending;
    this.#pending = null;
    return r;
  }
}

const kTapped = Symbol('trove.wireTap');

/** Wrap `push` and `write` on a freshly connected socket. Idempotent. */
export function installWireTap(socket: Socket, slot: ClaimSlot): void {
  const s = socket as Socket & { [kTapped]?: boolean };
  if (s[kTapped]) return;
  s[kTapped] = true;

  let owner: WireRecorder | null = null;
  let requests = 0;

  const originalPush = socket.push;
  socket.push = function tappedPush(this: Socket, chunk: unknown, encoding?: BufferEncoding): boolean {
    if (owner !== null) {
      if (chunk === null) {
        const o = owner;
        owner = null;
        o.ended();
      } else if (chunk !== undefined) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, encoding);
        if (!owner.received(buf)) owner = null;
      }
      // The recording may have aborted the request (limits, malformed bytes), which destroys
      // the socket; a destroyed stream must not be fed.
      if (socket.destroyed) return false;
    }
    return originalPush.call(this, chunk, encoding);
  };

  const originalWrite = socket.write as (...args: unknown[]) => boolean;
  socket.write = function tappedWrite(this: Socket, ...args: unknown[]): boolean {
    const claimed = slot.take();
    if (claimed !== null) {
      owner = claimed;
      requests++;
      claimed.attached({ remoteAddress: socket.remoteAddress ?? null, reused: requests > 1 });
    }
    const [chunk, encoding] = args;
    if (owner !== null && (typeof chunk === 'string' || chunk instanceof Uint8Array)) {
      owner.sent(typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk));
    }
    return originalWrite.apply(this, args);
  } as Socket['write'];
}
