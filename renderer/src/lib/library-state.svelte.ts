/** The Library screen: crawls and imported archives, delete with confirmation, import (with its ETA, and Cancel). */
import type { DeleteTicket, ImportProgress, ImportResult, LibraryEntry } from '../../../core/api/app-types.ts';
import { unwrap, type TroveApi } from './bridge.ts';
import { attempt } from './attempt.ts';
import { etaMs } from './qa-format.ts';

const isPaused = (e: LibraryEntry) => e.state === 'paused' || e.state === 'pausing';

export class LibraryState {
  entries = $state.raw<LibraryEntry[]>([]);
  loaded = $state(false);
  loading = $state(false);
  error = $state<string | null>(null);
  /** A delete waiting for the user's confirmation. */
  pendingDelete = $state.raw<DeleteTicket | null>(null);
  importing = $state(false);
  importProgress = $state.raw<ImportProgress | null>(null);
  /** The entry the running import fills (from its progress events), to cancel it. */
  importId = $state<string | null>(null);
  /** Cancel was asked for the running import. */
  cancelling = $state(false);
  lastImport = $state.raw<ImportResult | null>(null);
  busyId = $state<string | null>(null);
  /** When the running import started, and when its last progress came (the clock is injected). */
  #importStartedAt = 0;
  #importAt = $state(0);
  /** ms left of the running import at its rate so far, or null before there is one. */
  importEta = $derived(this.importProgress ? etaMs(this.importProgress.bytes, this.importProgress.total, this.#importStartedAt, this.#importAt) : null);

  readonly api: TroveApi;
  private readonly now: () => number;

  constructor(api: TroveApi, now: () => number = Date.now) {
    this.now = now;
    this.api = api;
  }

  totalBytes = $derived(this.entries.reduce((s, e) => s + e.sizeBytes, 0));
  /** Crawls with a worker (crawling or paused), for the Library's own count. */
  running = $derived(this.entries.filter((e) => e.running).length);
  /** Running crawls that are fetching: a paused crawl is not crawling. */
  crawling = $derived(this.entries.filter((e) => e.running && !isPaused(e)).length);
  paused = $derived(this.entries.filter((e) => e.running && isPaused(e)).length);

  /**
   * The message a failed listing showed. A listing that works clears that one only: it runs after
   * every import (and on every library.changed event), so clearing any message would wipe an
   * import's outcome ("Import cancelled…") moments after it was shown.
   */
  #listError: string | null = null;

  async refresh(): Promise<void> {
    const r = await attempt(this.api.library.list(), (on) => (this.loading = on));
    if (r.ok) {
      this.entries = r.value;
      if (this.error === this.#listError) this.error = null;
      this.#listError = null;
    } else this.error = this.#listError = r.message;
    this.loaded = true;
  }

  async askDelete(id: string): Promise<void> {
    const r = await attempt(this.api.library.prepareDelete({ id }));
    if (r.ok) this.pendingDelete = r.value;
    this.error = r.ok ? null : r.message;
  }

  cancelDelete(): void {
    this.pendingDelete = null;
  }

  async confirmDelete(): Promise<boolean> {
    const ticket = this.pendingDelete;
    if (!ticket) return false;
    this.pendingDelete = null;
    const r = await attempt(this.api.library.delete({ id: ticket.id, token: ticket.token }), (on) => (this.busyId = on ? ticket.id : null));
    if (r.ok) this.entries = this.entries.filter((e) => e.id !== ticket.id);
    else this.error = r.message;
    return r.ok;
  }

  async importPaths(files: string[], copy = true): Promise<ImportResult | null> {
    if (files.length === 0) return null;
    this.importProgress = null;
    this.importId = null;
    this.cancelling = false;
    this.#importStartedAt = this.now();
    const r = await attempt(this.api.library.import({ files, copy }), (on) => (this.importing = on));
    this.importProgress = null;
    this.importId = null;
    if (!r.ok) {
      this.error = this.cancelling ? 'Import cancelled: the library is as it was.' : r.message;
      this.cancelling = false;
      await this.refresh();
      return null;
    }
    this.lastImport = r.value;
    this.error = null;
    await this.refresh();
    return r.value;
  }

  async chooseAndImport(): Promise<ImportResult | null> {
    const r = await attempt(this.api.shell.chooseFiles({ purpose: 'import' }));
    if (r.ok) return this.importPaths(r.value);
    this.error = r.message;
    return null;
  }

  /** Continue a paused, stopped or interrupted crawl. */
  async resume(id: string): Promise<boolean> {
    const r = await attempt(async () => {
      await unwrap(this.api.crawl.resume({ id }));
      await this.refresh();
    }, (on) => (this.busyId = on ? id : null));
    if (!r.ok) this.error = r.message;
    return r.ok;
  }

  onProgress(p: { id: string; progress: ImportProgress }): void {
    if (!this.importing) return;
    this.importProgress = p.progress;
    this.importId = p.id;
    this.#importAt = this.now();
  }

  /** Cancel the running import: it stops and leaves the library as it was. */
  async cancelImport(): Promise<void> {
    if (!this.importing || !this.importId || this.cancelling) return;
    this.cancelling = true;
    const r = await attempt(this.api.library.cancelImport({ id: this.importId }));
    if (!r.ok) this.error = r.message;
  }
}
