/**
 * How the QA view writes a run's figures: a band as a tone (good green, moderate amber, severe
 * red, as Browsertrix colours them), a 0..1 score as two decimals, and the time left of a run
 * at the rate it has kept so far (the monitor's limits use the same average-rate ETA).
 */
import type { QaBand, QaVerdict } from '../../../core/api/qa-types.ts';
import type { Tone } from './format.ts';

export const BAND_TONE: Record<QaBand, Tone> = { good: 'ok', moderate: 'warn', severe: 'bad' };
export const VERDICT_TONE: Record<QaVerdict, Tone> = { approved: 'ok', rejected: 'bad' };

/** `0.93`, or `–` where the reference had nothing to compare (no screenshot, no text). */
export function formatScore(score: number | null): string {
  return score === null || !Number.isFinite(score) ? '–' : score.toFixed(2);
}

/** ms left at the average rate since `startedAt`, or null before the first page or once done. */
export function etaMs(done: number, total: number, startedAt: number, now: number): number | null {
  if (done <= 0 || total <= 0 || done >= total) return null;
  return ((total - done) * Math.max(now - startedAt, 1)) / done;
}

/** A page's identity in a run's results and in the reviews: its URL and capture time. */
export const pageKey = (p: { url: string; ts: string }): string => `${p.ts} ${p.url}`;
