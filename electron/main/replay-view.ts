/**
 * The replay view: a WebContentsView in its own session partition (`trove-replay`) whose every
 * http and https request is answered by `session.protocol.handle` from the archive (core replay
 * via replayResponse) — a miss is the "not archived" page, never the live web. The rest of the
 * replay policy is core/replay/replay-policy.ts, shared with the e2e harness: every answer carries
 * its CSP and (HTML) guard script; here the session adds what only the host can — other schemes
 * (ws:, wss:, ftp:, …) cancelled, WebRTC limited to proxied UDP (there is no proxy, so none),
 * service workers refused, permissions refused, new windows opened in the same view.
 */
import { session, WebContentsView, type BaseWindow, type Session } from 'electron';
import type { ReplayBounds, ReplayOpened, ReplayRequest } from '../../core/api/app-types.ts';
import type { Emit } from '../../core/api/channels.ts';
import type { AppService } from '../../core/app/app-service.ts';
import { replayInfo, replayResponse } from '../../core/app/replay-bridge.ts';
import { REPLAY_WEBRTC_POLICY, replaySchemeAllowed } from '../../core/replay/replay-policy.ts';
import { MissingResources } from '../../core/replay/missing-resources.ts';
import { LOCKED_DOWN } from './web-preferences.ts';

export const REPLAY_PARTITION = 'trove-replay';

/** Statuses a fetch Response may not carry a body with. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

interface Context {
  archiveId: string;
  at?: string;
  url: string;
  /** What the page shown asked for and the archive does not hold. */
  missing: MissingResources;
}

export class ReplayView {
  private view: WebContentsView | null = null;
  private ctx: Context | null = null;
  private readonly window: BaseWindow;
  private readonly service: AppService;
  private readonly emit: Emit;
  private readonly session: Session;

  constructor(window: BaseWindow, service: AppService, emit: Emit) {
    this.window = window;
    this.service = service;
    this.emit = emit;
    this.session = session.fromPartition(REPLAY_PARTITION);
    this.installHandlers();
  }

  private installHandlers(): void {
    const answer = async (request: Request): Promise<Response> => {
      const ctx = this.ctx;
      if (!ctx) return new Response('Replay is closed.', { status: 404, headers: { 'content-type': 'text/plain' } });
      const r = await replayResponse(this.service.archive(ctx.archiveId), {
        url: request.url,
        ...(ctx.at ? { at: ctx.at } : {}),
        method: request.method,
        headers: [...request.headers.entries()],
      });
      if (r.info.kind === 'not-archived' && ctx.missing.note(request.url)) {
        this.emit('replay.missing', { archiveId: ctx.archiveId, page: ctx.missing.page, urls: ctx.missing.list() });
      }
      const status = r.status >= 200 && r.status <= 599 ? r.status : 502;
      const headers = new Headers();
      for (const [k, v] of r.headers) {
        try {
          headers.append(k, v);
        } catch {
          /* an archived header no fetch Headers accepts */
        }
      }
      return new Response(NULL_BODY.has(status) ? null : new Uint8Array(r.body), { status, statusText: r.statusText, headers });
    };
    for (const scheme of ['http', 'https']) {
      if (this.session.protocol.isProtocolHandled(scheme)) this.session.protocol.unhandle(scheme);
      this.session.protocol.handle(scheme, answer);
    }
    // Anything that is not answered by the handler above must not leave the machine.
    this.session.webRequest.onBeforeRequest((details, callback) => {
      callback({ cancel: !replaySchemeAllowed(details.url) || details.resourceType === 'webSocket' });
    });
    // A worker registered before the policy (an older profile) must not answer for the archive.
    void this.session.clearStorageData({ storages: ['serviceworkers'] }).catch(() => {});
    this.session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
    this.session.setPermissionCheckHandler(() => false);
  }

  private ensureView(): WebContentsView {
    if (this.view && !this.view.webContents.isDestroyed()) return this.view;
    const view = new WebContentsView({
      webPreferences: { ...LOCKED_DOWN, partition: REPLAY_PARTITION, spellcheck: false, safeDialogs: true },
    });
    const wc = view.webContents;
    wc.setWebRTCIPHandlingPolicy(REPLAY_WEBRTC_POLICY);
    wc.setWindowOpenHandler(({ url }) => {
      if (/^https?:/.test(url)) void wc.loadURL(url);
      return { action: 'deny' };
    });
    wc.on('will-navigate', (e, url) => {
      if (!/^https?:/.test(url)) e.preventDefault();
    });
    wc.on('will-redirect', (e, url) => {
      if (!/^https?:/.test(url)) e.preventDefault();
    });
    wc.on('did-navigate', (_e, url) => void this.navigated(url));
    view.setVisible(false);
    this.window.contentView.addChildView(view);
    this.view = view;
    return view;
  }

  private async navigated(url: string): Promise<void> {
    const ctx = this.ctx;
    if (!ctx || url === ctx.url) return;
    ctx.url = url;
    ctx.missing.reset(url);
    let info = null;
    try {
      info = await replayInfo(this.service.archive(ctx.archiveId), url, ctx.at);
    } catch {
      info = null;
    }
    this.emit('replay.navigated', { archiveId: ctx.archiveId, url, info });
  }

  async open(req: ReplayRequest): Promise<ReplayOpened> {
    const info = await replayInfo(this.service.archive(req.archiveId), req.url, req.at);
    const missing = new MissingResources();
    missing.reset(req.url);
    this.ctx = { archiveId: req.archiveId, url: req.url, ...(req.at ? { at: req.at } : {}), missing };
    const view = this.ensureView();
    void view.webContents.loadURL(req.url).catch(() => {
      /* a failed load shows Chromium's error page; the banner shows the replay info */
    });
    return { mode: 'view', frameSrc: null, info };
  }

  setBounds(b: ReplayBounds): void {
    const view = this.view;
    if (!view) return;
    if (!b.visible || b.width <= 0 || b.height <= 0) {
      view.setVisible(false);
      return;
    }
    view.setBounds({ x: Math.round(b.x), y: Math.round(b.y), width: Math.round(b.width), height: Math.round(b.height) });
    view.setVisible(true);
  }

  close(): void {
    this.ctx = null;
    const view = this.view;
    this.view = null;
    if (!view) return;
    this.window.contentView.removeChildView(view);
    view.webContents.close();
  }
}
