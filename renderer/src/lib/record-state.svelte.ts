/**
 * The Record screen's state: which archive to record into (one of the library or a new one), the
 * address to open, and the recording under way as the core reports it (`record.progress`): the
 * pages captured so far, growing as the archivist browses in the Record window.
 */
import type { RecordStatus } from '../../../core/api/app-types.ts';
import type { TroveApi } from './bridge.ts';
import { attempt } from './attempt.ts';

/** `new` records into a new archive named `newName`; anything else is a library entry id. */
export const NEW_ARCHIVE = '';

export class RecordState {
  target = $state<string>(NEW_ARCHIVE);
  newName = $state('');
  url = $state('');
  status = $state.raw<RecordStatus | null>(null);
  busy = $state(false);
  error = $state<string | null>(null);

  readonly api: TroveApi;
  /** The address as last set from the Record window; while the field still shows it, it follows the window. */
  private synced: string | null = null;

  constructor(api: TroveApi) {
    this.api = api;
  }

  recording = $derived(this.status !== null && this.status.state !== 'stopped');
  canStart = $derived(!this.busy && !this.recording && this.url.trim() !== '' && (this.target !== NEW_ARCHIVE || this.newName.trim() !== ''));

  /** The recording under way when the screen opens (the app window may have been reloaded). */
  async refresh(): Promise<void> {
    const r = await attempt(this.api.record.status());
    if (r.ok) this.status = r.value;
    else this.error = r.message;
  }

  onProgress(s: RecordStatus): void {
    this.status = s;
    // The address follows the pages the archivist opens, unless they are typing another one.
    const latest = s.pages.at(-1)?.url;
    if (s.state === 'recording' && latest && (this.synced === null || this.url === this.synced)) {
      this.url = latest;
      this.synced = latest;
    }
  }

  async start(): Promise<string | null> {
    if (!this.canStart) return null;
    this.error = null;
    const req = this.target === NEW_ARCHIVE ? { newArchiveName: this.newName.trim(), url: this.url.trim() } : { archiveId: this.target, url: this.url.trim() };
    const r = await attempt(this.api.record.start(req), (on) => (this.busy = on));
    if (!r.ok) {
      this.error = r.message;
      return null;
    }
    this.status = r.value;
    this.synced = this.url;
    return r.value.archiveId;
  }

  /** Load the address in the Record window. */
  async go(): Promise<void> {
    if (!this.recording || this.url.trim() === '') return;
    this.error = null;
    const r = await attempt(this.api.record.navigate({ url: this.url.trim() }));
    if (r.ok) this.synced = this.url;
    else this.error = r.message;
  }

  /** The name to save the Record window's session under, and what the last save said. */
  profileName = $state('');
  profileSaved = $state<string | null>(null);

  /** Save the Record window's session (cookies, the page's storage) as a browser profile of the library. */
  async saveProfile(): Promise<void> {
    const name = this.profileName.trim();
    if (!this.recording || name === '') return;
    this.error = null;
    this.profileSaved = null;
    const r = await attempt(this.api.record.saveProfile({ name }));
    if (r.ok) this.profileSaved = `Saved profile ${r.value.name}: ${r.value.cookies} cookies${r.value.sites.length ? ` for ${r.value.sites.join(', ')}` : ''}. A new crawl can start from it (Login card).`;
    else this.error = r.message;
  }

  async stop(): Promise<RecordStatus | null> {
    const r = await attempt(this.api.record.stop(), (on) => (this.busy = on));
    if (!r.ok) {
      this.error = r.message;
      return null;
    }
    if (r.value) this.status = r.value;
    return r.value;
  }
}
