/**
 * The QA runs and patches the app has under way: at most one per archive (a second would score
 * pages while the first rewrites them), each with its progress sent up as `qa.progress` events
 * (a view opened mid-run asks `status` and picks it up), an AbortController for Cancel, and a
 * `qa.done` event when it ends however it ends. The work itself is the QA engine's
 * (qa-engine.ts); results are written into the archive as they come, so nothing is lost here.
 */
import type { Emit } from '../api/channels.ts';
import type { QaProgress } from '../api/qa-types.ts';
import type { QaJobKind, QaJobStatus } from '../api/qa-view-types.ts';
import { TroveError, isTroveError } from '../errors.ts';

/** What a job is handed: where to report, and the signal Cancel raises. */
export interface QaJobHooks {
  signal: AbortSignal;
  progress(p: QaProgress, phase?: QaJobStatus['phase']): void;
}

interface Running {
  status: QaJobStatus;
  abort: AbortController;
}

export class QaJobs {
  private running = new Map<string, Running>();
  private emit: Emit;
  private now: () => number;

  constructor(emit: Emit, now: () => number = Date.now) {
    this.emit = emit;
    this.now = now;
  }

  isRunning(archiveId: string): boolean {
    return this.running.has(archiveId);
  }

  status(archiveId: string): QaJobStatus | null {
    return this.running.get(archiveId)?.status ?? null;
  }

  /** Run `work` as the archive's job; refused while another runs on it. */
  async run<T>(archiveId: string, job: QaJobKind, work: (hooks: QaJobHooks) => Promise<T>): Promise<T> {
    if (this.running.has(archiveId)) {
      const other = this.running.get(archiveId)!.status.job;
      throw new TroveError('QA_RUNNING', `a ${other === 'qa' ? 'QA run' : 'patch'} is already under way on ${archiveId}: wait for it or cancel it`, { id: archiveId });
    }
    const abort = new AbortController();
    const running: Running = { status: { archiveId, job, startedAt: this.now(), progress: { done: 0, total: 0, url: null }, phase: job === 'patch' ? 'crawl' : 'qa' }, abort };
    this.running.set(archiveId, running);
    this.emit('qa.progress', running.status);
    const hooks: QaJobHooks = {
      signal: abort.signal,
      progress: (p, phase) => {
        // A new object each time: an event already sent keeps what it said.
        running.status = { ...running.status, progress: { ...p }, phase: phase ?? running.status.phase };
        this.emit('qa.progress', running.status);
      },
    };
    try {
      const value = await work(hooks);
      this.emit('qa.done', { archiveId, job, ok: true, cancelled: abort.signal.aborted, message: null });
      return value;
    } catch (err) {
      const message = isTroveError(err) || err instanceof Error ? err.message : String(err);
      this.emit('qa.done', { archiveId, job, ok: false, cancelled: abort.signal.aborted, message });
      throw err;
    } finally {
      this.running.delete(archiveId);
    }
  }

  /** Raise the archive's job's abort signal (false when none runs). */
  cancel(archiveId: string): boolean {
    const r = this.running.get(archiveId);
    if (!r) return false;
    r.abort.abort();
    return true;
  }

  /** Cancel every job (the app is closing). */
  close(): void {
    for (const r of this.running.values()) r.abort.abort();
  }
}
