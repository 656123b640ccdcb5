/**
 * What every Frontier implementation checks and reports alike: argument validation with stable
 * error codes, and a queue's state from its counters. Shared by the SQLite and PostgreSQL
 * frontiers so the two cannot drift apart.
 */
import { TroveError } from '../errors.ts';
import type { Candidate, ClaimedUri, Outcome, QueueInfo, QueueState } from './frontier.ts';

/** A queue's counters as both stores keep them (column names as in their tables). */
export interface QueueCounters {
  key: string;
  pending: number;
  waiting: number;
  in_flight: number;
  max_in_flight: number;
  ready_at: number;
  done: number;
  failed: number;
}

export function queueInfo(q: QueueCounters, now: number): QueueInfo {
  let state: QueueState;
  if (q.max_in_flight === 0) state = 'retired';
  else if (q.pending + q.waiting + q.in_flight === 0) state = 'exhausted';
  else if (q.pending > 0 && q.in_flight < q.max_in_flight && q.ready_at <= now) state = 'ready';
  else if (q.in_flight >= q.max_in_flight || q.pending + q.waiting === 0) state = 'in-process';
  else state = 'snoozed';
  return {
    key: q.key,
    pending: q.pending + q.waiting,
    waiting: q.waiting,
    inFlight: q.in_flight,
    readyAt: q.ready_at,
    state,
    maxInFlight: q.max_in_flight,
    done: q.done,
    failed: q.failed,
  };
}

export function notInFlight(uri: ClaimedUri): TroveError {
  return new TroveError('FRONTIER_NOT_IN_FLIGHT', `URI ${uri.url} (id ${uri.id}) is not in flight`, { id: uri.id, url: uri.url });
}

export function checkCandidate(c: Candidate): void {
  if (typeof c.fingerprint !== 'bigint' || typeof c.url !== 'string' || c.url === '' || typeof c.queueKey !== 'string' || c.queueKey === '') {
    throw new TroveError('FRONTIER_BAD_CANDIDATE', 'a candidate needs a url, a queueKey and a bigint fingerprint', { url: c?.url });
  }
  if (c.directive !== undefined && !Number.isInteger(c.directive)) {
    throw new TroveError('FRONTIER_BAD_CANDIDATE', `directive must be an integer`, { url: c.url, directive: c.directive });
  }
  if (c.notBefore !== undefined) checkTime(c.notBefore, 'notBefore');
}

export function checkOutcome(o: Outcome): void {
  if (!Number.isInteger(o.status) || o.status === 0) {
    throw new TroveError('FRONTIER_BAD_OUTCOME', 'outcome status must be a non-zero integer', { status: o.status });
  }
  checkTime(o.queueReadyAt, 'queueReadyAt');
  if (o.retryAt !== undefined) checkTime(o.retryAt, 'retryAt');
}

export function checkTime(t: number, name: string): void {
  if (!Number.isFinite(t)) throw new TroveError('FRONTIER_BAD_TIME', `${name} must be a finite number of ms`, { [name]: t });
}

export function checkLimit(n: number): void {
  if (!Number.isInteger(n) || n < 0) {
    throw new TroveError('FRONTIER_BAD_LIMIT', 'maxInFlight must be an integer >= 0', { maxInFlight: n });
  }
}
