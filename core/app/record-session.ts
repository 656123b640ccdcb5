/**
 * Record by browsing (ArchiveWeb.page's core feature): the archivist browses in a Record tab
 * (Electron's own Chromium in the app, a Chromium page in the tests) and everything the tab loads
 * goes into an archive of the library, through the same records, digests, revisits and capture
 * index as a crawl.
 *
 * The browser side is core/browser's PageRecorder over a CdpSession; this file is the archive
 * side: its sink writes each RecordedExchange as a crawl writes a fetch (buildCaptureGroup →
 * WarcWriter → captureRows → the capture index), into the archive's own `warcs/rec-….warc.gz`,
 * and lists every top-level HTML document as a page, so the archive's Pages view grows while the
 * archivist browses. Stopping writes what is pending, closes the WARC (renamed from `.open`) and
 * records its fixity, as a crawl does when it closes a file.
 *
 * The host only opens and closes the tab (`RecordTab`): everything that can be tested without
 * Electron lives here.
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import type { RecordedPage, RecordStatus } from '../api/app-types.ts';
import { defaultSettings, TROVE_VERSION } from '../api/settings.ts';
import { TroveError } from '../errors.ts';
import type { Archive } from '../archive/archive-dir.ts';
import { WARCS_FOLDER } from '../archive/archive-dir.ts';
import type { CdpSession } from '../browser/cdp-session.ts';
import { readTabState } from '../browser/tab-state.ts';
import type { RecordedExchange, RecordSink } from '../browser/recorded-exchange.ts';
import { PageRecorder } from '../browser/page-recorder.ts';
import { exchangeCaptureInput } from '../crawl/exchange-records.ts';
import { buildCaptureGroup, REVISIT_PROFILE_IDENTICAL, type RevisitOf } from '../crawl/capture-records.ts';
import { captureRows } from '../crawl/capture-rows.ts';
import { fieldValue, listFieldValue } from '../formats/http-fields.ts';
import { headMediaType } from '../formats/media-type.ts';
import { archiveSealer, type WarcSealer } from '../archive/warc-sealer.ts';
import { reconcileIndex } from '../crawl/reconcile-index.ts';
import { listOpenWarcs, recoverOpenWarc } from '../warc/recover-open-warc.ts';
import { decodeBodyStream } from '../extract/decode-body.ts';
import { extractDocument } from '../extract/extract-document.ts';
import { surtKey } from '../scope/surt.ts';
import { normalizeUrl } from '../scope/normalize-url.ts';
import { WarcWriter } from '../warc/warc-writer.ts';
import { createFetcher } from '../fetch/fetcher.ts';
import type { Fetcher } from '../fetch/fetch-types.ts';
import { headOfWrittenFields } from '../warc/read-record.ts';
import { indexRow } from '../archive/index-row.ts';
import { screenshotRecord } from '../browser/page-resource-records.ts';

/** The Record tab as the host gives it: a CDP session to it, and its lifetime. */
export interface RecordTab {
  readonly session: CdpSession;
  /** Called once if the user closes the tab (or its window) before `close()`. */
  onClosed(listener: () => void): void;
  /** Close the tab (the recording has stopped). */
  close(): Promise<void>;
}

/** The host's part: open a fresh Record tab (its own session partition in the app). */
export type OpenRecordTab = () => Promise<RecordTab>;

/** WARC file name prefix of recordings: `rec-<timestamp>-<serial>-<pid>~<host>.warc.gz`. */
export const RECORD_WARC_PREFIX = 'rec';

/** Progress events at most this often while exchanges stream in (a page always sends one at once). */
const PROGRESS_EVERY_MS = 250;

export interface RecordSessionOptions {
  archive: Archive;
  archiveId: string;
  tab: RecordTab;
  onProgress(status: RecordStatus): void;
  /** Host part of the WARC name (default os.hostname()). */
  hostLabel?: string;
  /** Said in the status from the start (what recoverRecordings did). */
  note?: string | null;
}

export class RecordSession {
  readonly archiveId: string;
  readonly #archive: Archive;
  readonly #tab: RecordTab;
  readonly #onProgress: (s: RecordStatus) => void;
  readonly #writer: WarcWriter;
  readonly #sealer: WarcSealer;
  readonly #recorder: PageRecorder;
  readonly #mediaFetcher: Fetcher;
  readonly #spoolDir: string;
  readonly #fileIds = new Map<string, number>();
  readonly #pages: RecordedPage[] = [];
  /** Latest page record id per URL, for the title and text the live DOM gives after load. */
  readonly #pageRows = new Map<string, number>();
  /** Pages (index ids) whose screenshot is written: one per page, at its first network idle. */
  readonly #shot = new Set<number>();
  readonly #startedAt = Date.now();
  #state: RecordStatus['state'] = 'recording';
  #message: string | null = null;
  #exchanges = 0;
  #records = 0;
  #warcFile: string | null = null;
  /** Exchanges are written one after another, so a revisit always finds the capture before it. */
  #chain: Promise<unknown> = Promise.resolve();
  #failure: unknown = null;
  #progressTimer: ReturnType<typeof setTimeout> | null = null;
  #stopping: Promise<RecordStatus> | null = null;
  /** The tab's top-level frame (its lifecycle events and navigations are the page's). */
  #mainFrame = '';
  /**
   * The loader of the document the top-level frame shows now (Page.frameNavigated). A screenshot
   * belongs to the document whose network went quiet: if another one commits while it is taken,
   * it is dropped, never filed under the wrong page (the archivist clicks on while it is taken).
   */
  #document = '';
  /**
   * The live DOM's title and text are taken at load, again when the network goes quiet
   * (Chromium's `networkIdle` lifecycle event: a page that fetches its content by script has it
   * only then) and at stop. (Not as the page is left: Runtime.evaluate then races the commit of
   * the next document and may read that one instead.)
   */
  readonly #onLoad = () => void this.#snapshotDom();
  readonly #onLifecycle = (e: { name?: string; frameId?: string; loaderId?: string }) => {
    if (e.name === 'networkIdle' && e.frameId === this.#mainFrame) {
      void this.#snapshotDom();
      void this.#screenshot(e.loaderId ?? '');
    }
  };
  readonly #onNavigated = (e: { frame?: { id?: string; parentId?: string; loaderId?: string } }) => {
    if (e.frame && !e.frame.parentId && e.frame.id === this.#mainFrame) this.#document = e.frame.loaderId ?? '';
  };

  constructor(opts: RecordSessionOptions) {
    this.archiveId = opts.archiveId;
    this.#archive = opts.archive;
    this.#tab = opts.tab;
    this.#onProgress = opts.onProgress;
    this.#message = opts.note ?? null;
    const warcDir = path.join(opts.archive.dir, WARCS_FOLDER);
    fs.mkdirSync(warcDir, { recursive: true });
    this.#spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-record-'));
    const index = opts.archive.index;
    this.#sealer = archiveSealer(opts.archive);
    this.#writer = new WarcWriter({
      dir: warcDir,
      prefix: RECORD_WARC_PREFIX,
      maxBytes: defaultSettings().warcMaxBytes,
      hostLabel: opts.hostLabel,
      warcinfo: () => ({ fields: recordWarcinfo() }),
      onFileOpened: (openPath) => {
        const name = path.basename(openPath).replace(/\.open$/, '');
        this.#warcFile = name;
        this.#fileIds.set(name, index.addFile({ path: `${WARCS_FOLDER}/${name}`, name, source: 'crawl' }));
      },
      onFileClosed: (finalPath) => {
        const id = this.#fileIds.get(path.basename(finalPath));
        if (id === undefined) return;
        index.updateFile(id, { size: fs.statSync(finalPath).size });
        this.#sealer.seal(id, finalPath);
      },
    });
    const sink: RecordSink = { exchange: (x) => this.#enqueue(() => this.#write(x)) };
    // Whole media files and stream renditions the tab played, fetched when the recording stops
    // (core/browser/media-completer.ts), with the crawl defaults' timeouts and media limits (the
    // page budget is the recording's).
    const s = defaultSettings();
    this.#mediaFetcher = createFetcher({
      connectTimeoutMs: s.connectTimeoutS * 1000,
      headersTimeoutMs: s.headersTimeoutS * 1000,
      idleTimeoutMs: s.idleTimeoutS * 1000,
      fetchTimeoutMs: s.fetchTimeoutS * 1000,
      maxBodyBytes: s.maxBodyBytes,
      maxHeaderBytes: s.maxHeaderBytes,
      spoolDir: this.#spoolDir,
      maxConnections: 1,
    });
    this.#recorder = new PageRecorder(opts.tab.session, sink, {
      spoolDir: this.#spoolDir,
      media: { fetcher: this.#mediaFetcher, renditions: s.mediaRenditions, maxResourceBytes: s.maxMediaBytes, maxPageBytes: s.maxPageMediaBytes },
    });
    opts.tab.onClosed(() => void this.stop('the Record window was closed'));
  }

  /** Start recording, then load `url` in the tab. */
  async start(url: string): Promise<void> {
    await this.#recorder.start();
    // The live DOM's title and text (after script) for the Pages list and search.
    await this.#tab.session.send('Page.enable').catch(() => {});
    await this.#tab.session.send('Page.setLifecycleEventsEnabled', { enabled: true }).catch(() => {});
    const tree = (await this.#tab.session.send('Page.getFrameTree').catch(() => null)) as { frameTree?: { frame?: { id?: string; loaderId?: string } } } | null;
    this.#mainFrame = tree?.frameTree?.frame?.id ?? '';
    this.#document = tree?.frameTree?.frame?.loaderId ?? '';
    this.#tab.session.on('Page.frameNavigated', this.#onNavigated);
    this.#tab.session.on('Page.loadEventFired', this.#onLoad);
    this.#tab.session.on('Page.lifecycleEvent', this.#onLifecycle);

    await this.navigate(url);
  }

  async navigate(url: string): Promise<void> {
    if (this.#state !== 'recording') throw new TroveError('RECORD_NOT_RUNNING', 'the recording has stopped');
    // A page that cannot load (DNS, refused) is the archivist's to see in the window, not an error here.
    await this.#tab.session.send('Page.navigate', { url: checkRecordUrl(url) });
  }

  /** The Record window's browser session (cookies, the page's storage) for a profile (issue 36). */
  browserState(): ReturnType<typeof readTabState> {
    return readTabState(this.#tab.session);
  }

  status(): RecordStatus {
    return {
      archiveId: this.archiveId,
      state: this.#state,
      startedAt: this.#startedAt,
      warcFile: this.#warcFile,
      exchanges: this.#exchanges,
      records: this.#records,
      bytes: this.#writer.bytesWritten,
      pages: [...this.#pages],
      message: this.#message,
    };
  }

  /**
   * Stop: every exchange the tab made reaches the WARC, the file is closed and sealed, the tab
   * closed. Safe to call twice (the second call waits for the first).
   */
  stop(reason: string | null = null): Promise<RecordStatus> {
    this.#stopping ??= this.#stop(reason);
    return this.#stopping;
  }

  async #stop(reason: string | null): Promise<RecordStatus> {
    // The page on screen as it is now (unless the window is gone), and its screenshot if its
    // network never went quiet.
    if (!reason) {
      await this.#snapshotDom();
      await this.#screenshot(this.#document);
    }
    this.#state = 'stopping';
    if (reason) this.#message = this.#message ? `${this.#message}; ${reason}` : reason;
    this.#tab.session.off('Page.loadEventFired', this.#onLoad);
    this.#tab.session.off('Page.lifecycleEvent', this.#onLifecycle);
    this.#tab.session.off('Page.frameNavigated', this.#onNavigated);

    try {
      await this.#recorder.stop();
    } catch {
      /* the tab is gone: what reached the sink is written below */
    }
    await this.#settled();
    try {
      await this.#writer.close();
      await this.#sealer.settle();
    } finally {
      if (this.#progressTimer) clearTimeout(this.#progressTimer);
      this.#progressTimer = null;
      await this.#mediaFetcher.close().catch(() => {});
      fs.rmSync(this.#spoolDir, { recursive: true, force: true });
      await this.#tab.close().catch(() => {});
      this.#state = 'stopped';
      if (this.#failure) this.#message = `writing stopped: ${messageOf(this.#failure)}`;
      this.#onProgress(this.status());
    }
    return this.status();
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(task).catch((err) => {
      // A write that failed (disk full…) stops nothing else: it is said once, at stop.
      this.#failure ??= err;
    });
    this.#chain = next;
    return next;
  }

  async #settled(): Promise<void> {
    let last: Promise<unknown>;
    do {
      last = this.#chain;
      await last;
    } while (last !== this.#chain);
  }

  async #write(x: RecordedExchange): Promise<void> {
    const input = await exchangeCaptureInput(x);
    const f = input.fetch;
    try {
      const index = this.#archive.index;
      // The same payload already captured at this URL (a reload, a shared script): a revisit, as
      // a crawl in its `url` dedup mode writes one. Not for the page itself: every page the
      // archivist opens is a page of the archive, and a page is a response. Not a 206 (a part of a
      // video: its whole 200 must not be a revisit of it) nor a cut body.
      let revisitOf: RevisitOf | null = null;
      const status = f.status ?? 0;
      if (!x.isPageDocument && f.payloadDigest && status >= 200 && status < 300 && status !== 206 && !f.truncated && (f.entity?.size ?? 0) > 0) {
        const original = index
          .findCaptures(surtKey(x.url))
          .find((c) => c.recordType === 'response' && c.status !== 206 && c.targetUri === x.url && c.payloadDigest === f.payloadDigest);
        if (original?.recordId && original.date) {
          revisitOf = { recordId: original.recordId, targetUri: x.url, date: original.date, profile: REVISIT_PROFILE_IDENTICAL };
        }
      }
      const group = buildCaptureGroup({ ...input, revisitOf });
      const written = await this.#writer.writeGroup(group.records);
      const mime = headMediaType(f.headers);
      let title: string | null = null;
      let text = '';
      let isHtml = false;
      if (x.isPageDocument && status === 200 && !revisitOf && f.entity) {
        const settings = defaultSettings();
        const decoded = await decodeBodyStream(f.entity.stream(), listFieldValue(f.headers, 'content-encoding') ?? undefined, settings.maxExtractBytes);
        const ex = extractDocument({ url: x.url, status, headers: f.headers, body: decoded.body, mime: mime ?? '', maxLinks: 0 });
        title = ex.title;
        text = ex.text;
        isHtml = ex.isHtml;
      }
      const page = isHtml && status === 200;
      const rows = captureRows({ fileIds: this.#fileIds }, x.url, input.date, f, written, page ? title : null, revisitOf, page);
      const ids = index.addRecords(rows);
      this.#exchanges += 1;
      this.#records += rows.length;
      if (page) {
        const pageId = ids[rows.findIndex((r) => r.page)]!;
        if (text) index.addPageText(pageId, title ?? '', text);
        this.#pageRows.set(x.url, pageId);
        this.#pages.push({ url: x.url, title, ts: rows[0]!.ts!, status });
        this.#progress(true);
      } else {
        this.#progress(false);
      }
    } finally {
      await Promise.all([f.body?.dispose(), f.entity !== f.body ? f.entity?.dispose() : undefined]).catch(() => {});
    }
  }

  /**
   * The page's title and text as the live DOM has them now (script-built pages have no other),
   * read at once (the page may be about to go) and stored after the writes queued before it, so
   * the page's own record is indexed by then.
   */
  async #snapshotDom(): Promise<void> {
    if (this.#state !== 'recording') return;
    let value: { url?: string; title?: string; text?: string } | undefined;
    try {
      const r = (await this.#tab.session.send('Runtime.evaluate', {
        expression: '({ url: location.href, title: document.title, text: document.body ? document.body.innerText : "" })',
        returnByValue: true,
      })) as { result?: { value?: { url?: string; title?: string; text?: string } } };
      value = r.result?.value;
    } catch {
      return; // navigated away or closed meanwhile
    }
    const url = value?.url;
    const title = (value?.title ?? '').trim();
    const text = value?.text ?? '';
    // Nothing to say yet (a document just committed, before it has a body).
    if (!url || (!title && !text)) return;
    await this.#enqueue(async () => {
      const id = this.#pageRows.get(url);
      if (id === undefined) return;
      this.#archive.index.addPageText(id, title, text.slice(0, defaultSettings().maxExtractBytes));
      const p = this.#pages.findLast((pg) => pg.url === url);
      if (p && title && p.title !== title) {
        p.title = title;
        this.#progress(true);
      }
    });
  }

  /**
   * The page's screenshot when its network first goes quiet, as a browser crawl stores it: a
   * `resource` record `urn:view:<url>` concurrent to the page's response (page-resource-records.ts),
   * indexed by the index's one rule, so the Pages list shows a thumbnail for it.
   */
  async #screenshot(loaderId: string): Promise<void> {
    // CDP delivers events in order with replies, so a commit before a reply is seen by then.
    const moved = () => loaderId !== '' && this.#document !== '' && this.#document !== loaderId;
    if (this.#state !== 'recording' || moved()) return;
    let url: string | undefined;
    let png: Buffer;
    try {
      const r = (await this.#tab.session.send('Runtime.evaluate', { expression: 'location.href', returnByValue: true })) as { result?: { value?: string } };
      url = r.result?.value;
      const pageId = url ? this.#pageRows.get(url) : undefined;
      if (!url || moved() || (pageId !== undefined && this.#shot.has(pageId))) return;
      const shot = (await this.#tab.session.send('Page.captureScreenshot', { format: 'png' })) as { data: string };
      if (moved()) return;
      png = Buffer.from(shot.data, 'base64');
    } catch {
      return; // navigated away or closed meanwhile
    }
    const date = new Date();
    await this.#enqueue(async () => {
      const id = this.#pageRows.get(url);
      if (id !== undefined && this.#state === 'recording') await this.#writeShot(url, id, date, png);
    });
  }

  /** The screenshot's `resource` record, once per page, indexed like every other record. */
  async #writeShot(url: string, id: number, date: Date, png: Buffer): Promise<void> {
    const page = this.#archive.index.byId(id);
    if (this.#shot.has(id) || !page?.recordId) return;
    this.#shot.add(id);
    const written = await this.#writer.writeGroup([screenshotRecord(url, date, png, page.recordId)]);
    const rows = written.map((w) =>
      indexRow({
        record: headOfWrittenFields(w.fields, { offset: w.offset, length: w.length, compressed: w.filename.endsWith('.gz') }),
        fileId: this.#fileIds.get(w.filename) ?? 0,
        offset: w.offset,
        length: w.length,
        http: null,
        page: null,
      }),
    );
    this.#archive.index.addRecords(rows);
    this.#records += rows.length;
  }

  #progress(now: boolean): void {
    if (now) {
      if (this.#progressTimer) clearTimeout(this.#progressTimer);
      this.#progressTimer = null;
      this.#onProgress(this.status());
      return;
    }
    this.#progressTimer ??= setTimeout(() => {
      this.#progressTimer = null;
      if (this.#state === 'recording') this.#onProgress(this.status());
    }, PROGRESS_EVERY_MS);
    this.#progressTimer.unref?.();
  }
}

/**
 * A recording the app did not stop (a crash, a kill) leaves its `rec-….warc.gz.open`: recover it
 * as a crawl's resume does — cut the torn tail, rename, index what the index missed, record the
 * fixity. Called before a new recording into the archive (none is running there then). Returns
 * what was done, for the log.
 */
export async function recoverRecordings(archive: Archive): Promise<string[]> {
  const notes: string[] = [];
  const recovered: string[] = [];
  for (const open of await listOpenWarcs(path.join(archive.dir, WARCS_FOLDER))) {
    if (!path.basename(open).startsWith(`${RECORD_WARC_PREFIX}-`)) continue;
    const r = await recoverOpenWarc(open);
    if (r.removed) notes.push(`removed ${path.basename(open)}: it held no complete record`);
    else {
      recovered.push(path.basename(r.finalPath));
      notes.push(`recovered ${path.basename(r.finalPath)}: ${r.records} records kept${r.cutBytes > 0 ? `, torn last record cut (${r.cutBytes} bytes)` : ''}`);
    }
  }
  if (recovered.length === 0) return notes;
  notes.push(...(await reconcileIndex(archive.index, archive.dir, recovered)).notes.map((n) => n.message));
  const sealer = archiveSealer(archive);
  sealer.sealUnsealed(archive.index, archive.dir);
  await sealer.settle();
  return notes;
}

/**
 * Only web pages are recorded, and an address is read by the same rule as a crawl's seed
 * (scope/normalize-url.ts: an absolute http or https URL, fragment dropped), so `example.org` is
 * refused in both places rather than guessed at in one.
 */
export function checkRecordUrl(input: string): string {
  try {
    return normalizeUrl(input.trim());
  } catch (err) {
    throw new TroveError('RECORD_BAD_URL', (err as Error).message, { url: input });
  }
}

function recordWarcinfo(): Record<string, string> {
  return {
    software: `Trove/${TROVE_VERSION} (Node.js ${process.version})`,
    format: 'WARC File Format 1.1',
    description: 'Recorded by browsing in the Trove Record window (the browser’s own network view, over the Chrome DevTools Protocol)',
    hostname: os.hostname(),
  };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
