/**
 * Read-only views of the frontier for the monitor, beside the statements the crawl writes with
 * (frontier-statements.ts): a queue's URIs in the order they will be claimed, paged, and the
 * queued URIs an exclusion pattern would match. They run on a reader's own connection (WAL), so
 * they never wait for, nor hold up, the crawl worker's transactions.
 */
import type Database from 'better-sqlite3';
import type { MatchSample, QueuedPage, QueuedUri } from '../api/app-types.ts';
import { UriState } from './frontier-statements.ts';

interface Row {
  id: number;
  url: string;
  hops_path: string;
  via: string | null;
  directive: number;
  not_before: number | null;
  attempts: number;
}

const COLS = 'id, url, hops_path, via, directive, not_before, attempts';

/**
 * One page of a queue: first its pending URIs in claim order (directive, then discovery; through
 * the uris_pending index), then the waiting ones by when they come due. The cursor is keyset
 * (`p:directive:id` / `w:notBefore:id`), so paging deep stays as cheap as the first page.
 */
export function queuedPage(db: Database.Database, queue: string, limit: number, after: string | null): QueuedPage {
  const q = db.prepare<[string], { id: number; pending: number; waiting: number }>('SELECT id, pending, waiting FROM queues WHERE key = ?').get(queue);
  if (!q) return { queue, uris: [], pending: 0, waiting: 0, next: null };
  const uris: QueuedUri[] = [];
  const [phase, a, b] = (after ?? 'p').split(':');
  let next: string | null = null;

  if (phase === 'p') {
    const rows =
      a === undefined
        ? db
            .prepare<[number, number], Row>(`SELECT ${COLS} FROM uris WHERE queue_id = ? AND state = ${UriState.PENDING} ORDER BY directive DESC, id LIMIT ?`)
            .all(q.id, limit + 1)
        : db
            .prepare<[number, number, number, number, number], Row>(
              `SELECT ${COLS} FROM uris WHERE queue_id = ? AND state = ${UriState.PENDING}
               AND (directive < ? OR (directive = ? AND id > ?)) ORDER BY directive DESC, id LIMIT ?`,
            )
            .all(q.id, Number(a), Number(a), Number(b), limit + 1);
    for (const r of rows.slice(0, limit)) uris.push(toUri(r, 'pending'));
    if (rows.length > limit) {
      const last = rows[limit - 1]!;
      return { queue, uris, pending: q.pending, waiting: q.waiting, next: `p:${last.directive}:${last.id}` };
    }
  }
  const room = limit - uris.length;
  if (room > 0 && q.waiting > 0) {
    const [t, id] = phase === 'w' ? [Number(a), Number(b)] : [-1, 0];
    const rows = db
      .prepare<[number, number, number, number, number], Row>(
        `SELECT ${COLS} FROM uris WHERE state = ${UriState.WAITING} AND queue_id = ?
         AND (not_before > ? OR (not_before = ? AND id > ?)) ORDER BY not_before, id LIMIT ?`,
      )
      .all(q.id, t, t, id, room + 1);
    for (const r of rows.slice(0, room)) uris.push(toUri(r, 'waiting'));
    if (rows.length > room) {
      const last = rows[room - 1]!;
      next = `w:${last.not_before}:${last.id}`;
    }
  } else if (room === 0 && phase === 'p' && q.waiting > 0) {
    next = 'w';
  }
  return { queue, uris, pending: q.pending, waiting: q.waiting, next };
}

function toUri(r: Row, state: QueuedUri['state']): QueuedUri {
  return { id: r.id, url: r.url, hopsPath: r.hops_path, via: r.via, state, notBefore: r.not_before, attempts: r.attempts };
}

/**
 * Queued (pending or waiting) URIs whose URL `re` matches: how many, and the first `samples` in
 * discovery order. At most `cap` rows are scanned (a regex cannot use an index).
 */
export function queuedMatching(db: Database.Database, re: RegExp, samples: number, cap = Infinity): MatchSample {
  const out: MatchSample = { count: 0, complete: true, samples: [] };
  let scanned = 0;
  const rows = db.prepare<[], { url: string }>(`SELECT url FROM uris WHERE state IN (${UriState.PENDING}, ${UriState.WAITING}) ORDER BY id`);
  for (const { url } of rows.iterate()) {
    if (++scanned > cap) {
      out.complete = false;
      break;
    }
    if (!re.test(url)) continue;
    out.count++;
    if (out.samples.length < samples) out.samples.push(url);
  }
  return out;
}
