/**
 * Where a QA run's time goes, page by page: the wall time of each phase of scoring a page, summed
 * over the pages (tabs overlap, so the sums can exceed the run's wall time), and the time the
 * replay handler spent answering the tabs' requests (inside navigation and waiting). Filled only
 * when asked (`QaEvents.phases`: the bench prints it), so a run pays one `performance.now()` pair
 * per phase at most.
 */
export const QA_PHASES = ['reference', 'navigate', 'quiet', 'behaviors', 'text', 'screenshot', 'score', 'store'] as const;
export type QaPhase = (typeof QA_PHASES)[number];

export class QaPhaseTimes {
  readonly ms: Record<QaPhase, number> = Object.fromEntries(QA_PHASES.map((p) => [p, 0])) as Record<QaPhase, number>;
  /** Requests the replay handler answered, and the time it took over them. */
  answers = 0;
  answerMs = 0;
  pages = 0;

  add(phase: QaPhase, since: number): number {
    const now = performance.now();
    this.ms[phase] += now - since;
    return now;
  }

  answered(since: number): void {
    this.answers++;
    this.answerMs += performance.now() - since;
  }
}
