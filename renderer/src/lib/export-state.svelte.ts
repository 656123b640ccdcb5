/** The Export dialog: format, options, progress from events (with an ETA, and Cancel), the result and earlier exports. */
import type { ExportFile, ExportFilter, ExportFormat, ExportProgressInfo, ExportResult, RecordFilter } from '../../../core/api/app-types.ts';
import type { Events } from '../../../core/api/channels.ts';
import { unwrap, type TroveApi } from './bridge.ts';
import { attempt } from './attempt.ts';
import { etaMs } from './qa-format.ts';

export const EXPORT_FORMATS: { id: ExportFormat; title: string; plain: string }[] = [
  { id: 'wacz', title: 'WACZ package', plain: 'One file with the WARCs, index and page list; opens in ReplayWeb.page and other WACZ tools.' },
  { id: 'warc', title: 'WARC subset', plain: 'One .warc.gz with the captures the current filters show (host, MIME, URL prefix, dates), revisits made whole.' },
  { id: 'cdxj', title: 'CDXJ index', plain: 'A sorted pywb-style index of every capture, for wayback tools.' },
  { id: 'mirror', title: 'Static mirror', plain: 'Plain files and folders with links rewritten, to browse offline or serve from any web server.' },
  { id: 'report', title: 'Crawl reports', plain: 'Heritrix-style summary, seeds, hosts, MIME types, status codes and scope rejections as CSV and JSON.' },
];

/** What of the browser's filter a WARC subset can use. */
export function subsetFilter(f: RecordFilter): ExportFilter {
  const out: ExportFilter = {};
  if (f.urlPrefix) out.urlPrefix = f.urlPrefix;
  else if (f.url) out.urlPrefix = f.url;
  if (f.host) out.host = f.host;
  if (f.mime) out.mime = f.mime;
  if (f.from) out.from = f.from;
  if (f.to) out.to = f.to;
  return out;
}

export class ExportState {
  open = $state(false);
  archiveId = $state<string | null>(null);
  format = $state<ExportFormat>('wacz');
  title = $state('');
  pageText = $state(true);
  /** Sign the WACZ with the app's own key (P-384, made at the first signed export). */
  sign = $state(false);
  /** WACZ and WARC: a marker in place of the session's Cookie/Authorization values (issue 36). */
  redactCredentials = $state(false);
  filter = $state.raw<ExportFilter>({});
  running = $state(false);
  exportId = $state<string | null>(null);
  progress = $state.raw<ExportProgressInfo | null>(null);
  result = $state.raw<ExportResult | null>(null);
  error = $state<string | null>(null);
  files = $state.raw<ExportFile[]>([]);
  /** Cancel was asked for the running export. */
  cancelling = $state(false);
  /** When the export's current phase began, and when its last progress came (the clock is injected). */
  #phaseStartedAt = 0;
  #progressAt = $state(0);
  /** ms left of the export's current phase at its rate so far, or null. */
  eta = $derived(this.progress ? etaMs(this.progress.done, this.progress.total, this.#phaseStartedAt, this.#progressAt) : null);

  readonly api: TroveApi;
  private readonly clock: () => number;

  constructor(api: TroveApi, clock: () => number = Date.now) {
    this.clock = clock;
    this.api = api;
  }

  /** Exports made before this one: the file just saved is the result, not an "earlier export". */
  earlier = $derived(this.result ? this.files.filter((f) => f.name !== this.result!.name) : this.files);

  /** 0..1 when the total is known, else null (indeterminate). */
  fraction = $derived(this.progress && this.progress.total > 0 ? Math.min(1, this.progress.done / this.progress.total) : null);

  async show(archiveId: string, filter: ExportFilter, title: string): Promise<void> {
    // A title typed for one archive is kept while that archive's dialog is reopened, never
    // carried to another archive's package.
    if (archiveId !== this.archiveId || !this.title) this.title = title;
    this.open = true;
    this.archiveId = archiveId;
    this.filter = filter;
    this.result = null;
    this.error = null;
    this.progress = null;
    await this.refreshFiles();
  }

  close(): void {
    if (!this.running) this.open = false;
  }

  async refreshFiles(): Promise<void> {
    if (!this.archiveId) return;
    const r = await attempt(this.api.export.list({ archiveId: this.archiveId }));
    this.files = r.ok ? r.value : [];
  }

  onProgress(p: Events['export.progress']): void {
    if (!this.running || p.archiveId !== this.archiveId) return;
    this.exportId = p.exportId;
    const now = this.clock();
    if (p.progress.phase !== this.progress?.phase) this.#phaseStartedAt = now;
    this.#progressAt = now;
    this.progress = p.progress;
  }

  /** Cancel the running export: a WACZ or CDXJ export stops and leaves no file. */
  async cancel(): Promise<void> {
    if (!this.running || !this.exportId || this.cancelling) return;
    this.cancelling = true;
    const r = await attempt(this.api.export.cancel({ exportId: this.exportId }));
    if (!r.ok) this.error = r.message;
  }

  /** Export into the archive's exports/ folder, or (`toFolder`) into a folder the user picks. */
  async run(opts: { toFolder?: boolean } = {}): Promise<ExportResult | null> {
    if (!this.archiveId || this.running) return null;
    this.error = null;
    this.result = null;
    this.progress = null;
    const req = {
      archiveId: this.archiveId,
      format: this.format,
      ...(this.format === 'wacz' ? { title: this.title.trim() || undefined, pageText: this.pageText, sign: this.sign } : {}),
      ...(this.format === 'warc' ? { filter: this.filter } : {}),
      ...((this.format === 'wacz' || this.format === 'warc') && this.redactCredentials ? { redactCredentials: true } : {}),
    };
    this.cancelling = false;
    this.exportId = null;
    const r = await attempt(async () => {
      this.result = await unwrap(opts.toFolder ? this.api.export.runTo(req) : this.api.export.run(req));
      await this.refreshFiles();
      return this.result;
    }, (on) => (this.running = on));
    if (!r.ok) this.error = this.cancelling ? 'Export cancelled: nothing of it was left.' : r.message;
    this.cancelling = false;
    return r.ok ? r.value : null;
  }

  reveal(): void {
    if (this.archiveId) void this.api.shell.reveal({ id: this.archiveId, exports: true });
  }
}
