/**
 * What a replayed page may reach: the archive, and nothing else. Replay answers every http(s)
 * request from the archive, but a browser has ways out that are not http(s) requests a host can
 * answer: WebSocket and WebTransport (their handshakes are not intercepted like fetches), WebRTC
 * (STUN/TURN over UDP, no request at all), service workers (a worker that outlives the page and
 * sits between it and the handler), and other schemes. The one definition of the policy lives
 * here and both hosts apply it: the Electron replay view (electron/main/replay-view.ts) and the
 * e2e harness (test/e2e/harness.ts) get it through `replayResponse`.
 *
 * Three layers, each enough for what it covers:
 * - a Content-Security-Policy on every replayed response that allows only http:, https:, data:
 *   and blob: for every fetch directive (so ws:, wss:, ftp:, file: never connect — CSP source
 *   `http:` does not match ws:, CSP3 §6.7.2.8) and no plugins;
 * - a guard script put first into every replayed HTML document that replaces the WebSocket,
 *   WebTransport and RTCPeerConnection constructors with ones that throw, refuses
 *   `serviceWorker.register`, and does the same to the window of any same-origin child frame
 *   before the page can reach it (an `about:blank` iframe would otherwise hand out clean ones);
 * - a refusal of any request a browser marks as a service worker script (`Service-Worker: script`,
 *   Service Workers §4.6) so registration fails even if the guard were bypassed.
 * The hosts add what only they can: Electron's `webrtc-ip-handling-policy`
 * (`disable_non_proxied_udp`, no UDP without a proxy, and there is none) and Chromium's
 * `--force-webrtc-ip-handling-policy` flag in the harness.
 *
 * The archived page's own CSP headers are dropped: they name live origins and would block the
 * guard script (an inline script); ours is the policy in force.
 */
import { headMediaType, isHtmlType } from '../formats/media-type.ts';

/** Schemes a replayed page may load at all (http and https are answered from the archive). */
export const REPLAY_SCHEMES: readonly string[] = ['http:', 'https:', 'data:', 'blob:', 'about:'];

/** True when a replay view may even ask for `url` (anything else is cancelled by the host). */
export function replaySchemeAllowed(url: string): boolean {
  try {
    return REPLAY_SCHEMES.includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

const SOURCES = "http: https: data: blob: 'unsafe-inline' 'unsafe-eval'";

/** The CSP every replayed response carries. */
export const REPLAY_CSP = [
  `default-src ${SOURCES}`,
  'connect-src http: https: data: blob:',
  "object-src 'none'",
  'worker-src http: https: data: blob:',
  'frame-src http: https: data: blob: about:',
].join('; ');

/** The WebRTC IP handling policy of the replay session: no UDP that does not go through a proxy. */
export const REPLAY_WEBRTC_POLICY = 'disable_non_proxied_udp';

/** Constructors that open connections replay cannot answer. */
const REFUSED = ['WebSocket', 'WebSocketStream', 'WebTransport', 'RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCIceTransport', 'RTCDataChannel'];

/**
 * The guard, as the source of a self-contained function run in the page. Written out by hand
 * because it is a page script (no library does "make this window unable to open sockets").
 */
function guard(refused: string[]): void {
  const blocked = (name: string) =>
    function refusedConstructor(): never {
      throw new DOMException(`${name} is not available in replay: a replayed page reaches only the archive`, 'SecurityError');
    };
  const protect = (w: Window & typeof globalThis) => {
    try {
      if (!w || Object.prototype.hasOwnProperty.call(w, '__troveReplayGuard')) return;
      Object.defineProperty(w, '__troveReplayGuard', { value: true });
      for (const name of refused) {
        if (name in w) Object.defineProperty(w, name, { value: blocked(name), writable: false, configurable: false });
      }
      const container = (w as unknown as { ServiceWorkerContainer?: { prototype: object } }).ServiceWorkerContainer;
      if (container) {
        Object.defineProperty(container.prototype, 'register', {
          value: () => Promise.reject(new DOMException('service workers are not available in replay', 'SecurityError')),
          writable: false,
          configurable: false,
        });
      }
      // A same-origin child frame's window is guarded before the page gets hold of it.
      for (const [proto, prop] of [
        [(w as unknown as { HTMLIFrameElement: { prototype: object } }).HTMLIFrameElement.prototype, 'contentWindow'],
        [(w as unknown as { HTMLFrameElement?: { prototype: object } }).HTMLFrameElement?.prototype, 'contentWindow'],
        [(w as unknown as { HTMLObjectElement: { prototype: object } }).HTMLObjectElement.prototype, 'contentWindow'],
        [(w as unknown as { HTMLIFrameElement: { prototype: object } }).HTMLIFrameElement.prototype, 'contentDocument'],
      ] as [object | undefined, string][]) {
        if (!proto) continue;
        const d = Object.getOwnPropertyDescriptor(proto, prop);
        if (!d?.get) continue;
        const get = d.get;
        Object.defineProperty(proto, prop, {
          configurable: false,
          enumerable: d.enumerable ?? false,
          get(this: unknown) {
            const v = get.call(this) as (Window & typeof globalThis) | Document | null;
            try {
              const win = v && 'defaultView' in v ? (v.defaultView as Window & typeof globalThis | null) : (v as (Window & typeof globalThis) | null);
              if (win) protect(win);
            } catch {
              /* a cross-origin window: it is a replayed document and carries its own guard */
            }
            return v;
          },
        });
      }
      // A child reached as window[0] / frames[0] is not caught here (indexed access cannot be
      // wrapped): for those the CSP (inherited by about:blank children) stops WebSocket and the
      // host's WebRTC IP policy stops UDP.
      const open = w.open;
      Object.defineProperty(w, 'open', {
        value: function guardedOpen(this: unknown, ...args: Parameters<typeof open>) {
          const child = open.apply(this, args) as (Window & typeof globalThis) | null;
          try {
            if (child) protect(child);
          } catch {
            /* cross-origin */
          }
          return child;
        },
        writable: false,
        configurable: false,
      });
    } catch {
      /* a window we cannot change is left to the CSP and the host's policy */
    }
  };
  protect(window as Window & typeof globalThis);
}

/** The guard as an inline script element. */
export const REPLAY_GUARD_SCRIPT = `<script data-trove-replay-guard>(${guard.toString()})(${JSON.stringify(REFUSED)});</script>`;

/** Headers replay drops from archived responses: the archived policy and service worker scope. */
const DROPPED = new Set(['content-security-policy', 'content-security-policy-report-only', 'service-worker-allowed', 'x-webkit-csp', 'x-content-security-policy']);

function isHtml(headers: readonly [string, string][]): boolean {
  return isHtmlType(headMediaType(headers));
}

/**
 * Put the guard first into an HTML body: after a leading BOM, comments and doctype (so the
 * document keeps its mode), before anything else the parser would run.
 */
export function injectGuard(body: Buffer): Buffer {
  const head = body.subarray(0, 4096).toString('latin1');
  const m = /^(\uFEFF|\xEF\xBB\xBF)?(\s*(<!--[\s\S]*?-->\s*)*(<!doctype[^>]*>)?)/i.exec(head);
  const at = m ? m[0].length : 0;
  return Buffer.concat([body.subarray(0, at), Buffer.from(REPLAY_GUARD_SCRIPT, 'utf8'), body.subarray(at)]);
}

/** An archived response as replay hands it out: our CSP, and the guard in HTML documents. */
export function applyReplayPolicy(headers: readonly [string, string][], body: Buffer, opts: { method?: string; status?: number } = {}): { headers: [string, string][]; body: Buffer } {
  const kept = headers.filter(([k]) => !DROPPED.has(k.toLowerCase())).map(([k, v]): [string, string] => [k, v]);
  let out = body;
  const whole = opts.status === undefined || opts.status === 200 || opts.status >= 400;
  if (isHtml(headers) && whole && (opts.method ?? 'GET').toUpperCase() !== 'HEAD' && body.length > 0) {
    out = injectGuard(body);
    for (const h of kept) if (h[0].toLowerCase() === 'content-length') h[1] = String(out.length);
  }
  return { headers: [...kept, ['Content-Security-Policy', REPLAY_CSP]], body: out };
}

/** A request the browser makes for a service worker's script (Service Workers §4.6). */
export function isServiceWorkerScript(headers: readonly [string, string][] | undefined): boolean {
  return !!headers?.some(([k, v]) => k.toLowerCase() === 'service-worker' && v.trim().toLowerCase() === 'script');
}
