/** The Library screen: crawls and imported archives, delete with confirmation, import. */
import type { DeleteTicket, ImportProgress, ImportResult, LibraryEntry } from '../../../core/api/app-types.ts';
import { messageOf, unwrap, type TroveApi } from './bridge.ts';

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
  lastImport = $state.raw<ImportResult | null>(null);
  busyId = $state<string | null>(null);

  readonly api: TroveApi;

  constructor(api: TroveApi) {
    this.api = api;
  }

  totalBytes = $derived(this.entries.reduce((s, e) => s + e.sizeBytes, 0));
  /** Crawls with a worker (crawling or paused), for the Library's own count. */
  running = $derived(this.entries.filter((e) => e.running).length);
  /** Running crawls that are fetching: a paused crawl is not crawling. */
  crawling = $derived(this.entries.filter((e) => e.running && !isPaused(e)).length);
  paused = $derived(this.entries.filter((e) => e.running && isPaused(e)).length);

  async refresh(): Promise<void> {
    this.loading = true;
    try {
      this.entries = await unwrap(this.api.library.list());
      this.error = null;
    } catch (err) {
      this.error = messageOf(err);
    } finally {
      this.loading = false;
      this.loaded = true;
    }
  }

  async askDelete(id: string): Promise<void> {
    try {
      this.pendingDelete = await unwrap(this.api.library.prepareDelete({ id }));
      this.error = null;
    } catch (err) {
      this.error = messageOf(err);
    }
  }

  cancelDelete(): void {
    this.pendingDelete = null;
  }

  async confirmDelete(): Promise<boolean> {
    const ticket = this.pendingDelete;
    if (!ticket) return false;
    this.pendingDelete = null;
    this.busyId = ticket.id;
    try {
      await unwrap(this.api.library.delete({ id: ticket.id, token: ticket.token }));
      this.entries = this.entries.filter((e) => e.id !== ticket.id);
      return true;
    } catch (err) {
      this.error = messageOf(err);
      return false;
    } finally {
      this.busyId = null;
    }
  }

  async importPaths(files: string[], copy = true): Promise<ImportResult | null> {
    if (files.length === 0) return null;
    this.importing = true;
    this.importProgress = null;
    try {
      const result = await unwrap(this.api.library.import({ files, copy }));
      this.lastImport = result;
      this.error = null;
      await this.refresh();
      return result;
    } catch (err) {
      this.error = messageOf(err);
      return null;
    } finally {
      this.importing = false;
      this.importProgress = null;
    }
  }

  async chooseAndImport(): Promise<ImportResult | null> {
    try {
      const files = await unwrap(this.api.shell.chooseFiles({ purpose: 'import' }));
      return await this.importPaths(files);
    } catch (err) {
      this.error = messageOf(err);
      return null;
    }
  }

  /** Continue a paused, stopped or interrupted crawl. */
  async resume(id: string): Promise<boolean> {
    this.busyId = id;
    try {
      await unwrap(this.api.crawl.resume({ id }));
      await this.refresh();
      return true;
    } catch (err) {
      this.error = messageOf(err);
      return false;
    } finally {
      this.busyId = null;
    }
  }

  onProgress(p: { id: string; progress: ImportProgress }): void {
    if (this.importing) this.importProgress = p.progress;
  }
}
