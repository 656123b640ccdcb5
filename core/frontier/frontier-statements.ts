/**
 * The SQL behind the SQLite frontier, prepared once per frontier. Every statement here touches
 * a bounded number of rows through an index (see the schema in storage/migrations.ts), which is
 * what keeps `claim` and `complete` O(log n) at millions of URIs. The one exception,
 * `recoverInFlight`, reads only the rows that were in flight. `+?` is a parameter SQLite must not
 * compile against (storage/open-database.ts says why).
 */
import type Database from 'better-sqlite3';
import { MAY_BE_PAGE_SQL } from './page-hops.ts';
import type { QueueCounters } from './frontier-checks.ts';
import { UriState } from './frontier.ts';

/** uris.state values: one definition in frontier.ts, the same codes in the PostgreSQL frontier's table. */
export { UriState };

/** A row of the SQLite `queues` table: the counters both stores keep, and its id. */
export interface QueueRow extends QueueCounters {
  id: number;
}

export interface PickedUri {
  id: number;
  url: string;
  hops_path: string;
  via: string | null;
  via_context: string | null;
  seed: number;
  attempts: number;
  directive: number;
}

export interface RetryWaitingRow {
  url: string;
  queue_key: string;
  status: number;
  attempts: number;
  not_before: number;
}

/** A queued row as a live exclusion sees it (queuedUrls). */
export interface QueuedRow {
  id: number;
  url: string;
  hops_path: string;
  via: string | null;
  via_context: string | null;
  seed: number;
  state: number;
  queue_id: number;
}

export interface StatsRow {
  pending: number;
  waiting: number;
  in_flight: number;
  done: number;
  failed: number;
  seen: number;
  queues: number;
}

// The claimable-queue condition, written exactly as in the partial index queues_claimable so the
// planner can use that index.
const CLAIMABLE = 'pending > 0 AND in_flight < max_in_flight';

/**
 * `uris` with the via and via_context of unfinished rows (`uri_via`, schema version 8): a
 * redirect's target keeps its via in `uris`, any other row's is in `uri_via` until it finishes.
 * The frontier view reads queued rows through the same two.
 */
export const WITH_VIA = 'uris LEFT JOIN uri_via ON uri_via.id = uris.id';
export const VIA = 'COALESCE(uris.via, uri_via.via)';
const PICKED = `uris.id AS id, url, hops_path, ${VIA} AS via, uri_via.via_context AS via_context, seed, attempts, directive`;

export function prepareFrontierStatements(db: Database.Database) {
  return { ...scheduleStatements(db), ...claimStatements(db), ...releaseStatements(db), ...counterStatements(db) };
}

export type FrontierStatements = ReturnType<typeof prepareFrontierStatements>;

/** Queues found or made, URIs added (schedule, forceSchedule), queue limits and ready times set. */
function scheduleStatements(db: Database.Database) {
  return {
    queueIdByKey: db.prepare<[string], { id: number }>('SELECT id FROM queues WHERE key = ?'),
    insertQueue: db.prepare<[string, number], { id: number }>('INSERT INTO queues (key, max_in_flight) VALUES (?, ?) RETURNING id'),
    queueByKey: db.prepare<[string], QueueRow>('SELECT * FROM queues WHERE key = ?'),
    queuePage: db.prepare<[number, number], QueueRow>('SELECT * FROM queues ORDER BY id LIMIT ? OFFSET ?'),
    setQueueLimit: db.prepare<[number, number]>('UPDATE queues SET max_in_flight = ? WHERE id = ?'),
    setQueueReadyAt: db.prepare<[number, number]>('UPDATE queues SET ready_at = ? WHERE id = ?'),
    addToQueue: db.prepare<[number, number, number]>('UPDATE queues SET pending = pending + ?, waiting = waiting + ? WHERE id = ?'),

    // A new row keeps in `uris` only what a finished row keeps too (via only on a redirect's
    // target, see finish), so a row never shrinks when it finishes: freed bytes inside a page
    // stay unused while rows are appended after it (schema version 8). Its other via and its
    // via_context go to `uri_via` (insertVia) until it finishes.
    insertUri: db.prepare<[bigint | null, number | null, number, number, number, number | null, number, string, string, string | null]>(
      `INSERT INTO uris (fingerprint, refetch_of, queue_id, state, directive, not_before, seed, url, hops_path, via)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(fingerprint) DO NOTHING`,
    ),
    // Which of a list's fingerprints (a JSON array of 64-bit integers, which json_each reads exactly)
    // a uris row already has, by position in the list: one statement for a page's outlinks instead
    // of one INSERT per outlink that then does nothing (scheduleAll).
    knownAmong: db
      .prepare<[string], number>('SELECT j.key FROM json_each(?) j WHERE EXISTS (SELECT 1 FROM uris WHERE fingerprint = j.value)')
      .pluck(),
    insertVia: db.prepare<[number | bigint, string | null, string | null]>('INSERT INTO uri_via (id, via, via_context) VALUES (?, ?, ?)'),
    uriByFingerprint: db.prepare<[bigint], { id: number; state: number }>('SELECT id, state FROM uris WHERE fingerprint = ?'),
    activeRefetch: db.prepare<[number], { id: number }>(`SELECT id FROM uris WHERE refetch_of = ? AND state < ${UriState.FINISHED} LIMIT 1`),
  };
}

/** claim: waiting URIs promoted, a queue and its next URI picked, marked in flight. */
function claimStatements(db: Database.Database) {
  return {
    earliestWaiting: db.prepare<[], { t: number | null }>(`SELECT MIN(not_before) AS t FROM uris WHERE state = ${UriState.WAITING}`),
    dueWaiting: db.prepare<[number, number], { id: number; queue_id: number }>(
      `SELECT id, queue_id FROM uris WHERE state = ${UriState.WAITING} AND not_before <= ? ORDER BY not_before LIMIT +?`,
    ),
    promote: db.prepare<[number]>(`UPDATE uris SET state = ${UriState.PENDING}, not_before = NULL WHERE id = ?`),
    promoteInQueue: db.prepare<[number, number, number]>('UPDATE queues SET pending = pending + ?, waiting = waiting - ? WHERE id = ?'),
    pickQueue: db.prepare<[number], { id: number; key: string }>(
      `SELECT id, key FROM queues WHERE ${CLAIMABLE} AND ready_at <= ? ORDER BY ready_at, id LIMIT 1`,
    ),
    pickUri: db.prepare<[number], PickedUri>(
      `SELECT ${PICKED} FROM ${WITH_VIA}
       WHERE queue_id = +? AND state = ${UriState.PENDING} ORDER BY directive DESC, uris.id LIMIT 1`,
    ),
    // claim with pages held back (a page limit whose slots are all taken): the first URI that
    // cannot be a page, from the claimable queues in their usual order, through the partial
    // index uris_pending_non_page (its condition must stay spelled as MAY_BE_PAGE_SQL).
    readyQueues: db.prepare<[number], { id: number; key: string }>(
      `SELECT id, key FROM queues WHERE ${CLAIMABLE} AND ready_at <= ? ORDER BY ready_at, id`,
    ),
    pickNonPageUri: db.prepare<[number], PickedUri>(
      `SELECT ${PICKED} FROM ${WITH_VIA}
       WHERE queue_id = +? AND state = ${UriState.PENDING} AND NOT (${MAY_BE_PAGE_SQL}) ORDER BY directive DESC, uris.id LIMIT 1`,
    ),
    firstClaimableNonPage: db.prepare<[], { t: number | null }>(
      `SELECT MIN(ready_at) AS t FROM queues WHERE ${CLAIMABLE} AND EXISTS
       (SELECT 1 FROM uris WHERE uris.queue_id = queues.id AND uris.state = ${UriState.PENDING} AND NOT (${MAY_BE_PAGE_SQL}))`,
    ),
    earliestWaitingNonPage: db.prepare<[], { t: number | null }>(
      `SELECT MIN(not_before) AS t FROM uris WHERE state = ${UriState.WAITING} AND NOT (${MAY_BE_PAGE_SQL})`,
    ),
    markInFlight: db.prepare<[number]>(`UPDATE uris SET state = ${UriState.IN_FLIGHT} WHERE id = ?`),
    queueClaimed: db.prepare<[number]>('UPDATE queues SET pending = pending - 1, in_flight = in_flight + 1 WHERE id = ?'),
  };
}

/** A URI given back (complete, defer, releaseSlot), dropped (a live exclusion) or put back after a crash (recovery). */
function releaseStatements(db: Database.Database) {
  return {
    // complete / defer
    // A finished row keeps what its readers need: the fingerprint (seen checks), url, status and
    // state (reports, resume), hops_path, and `via` where the row is a redirect's target (the
    // report's redirectFrom; kept in `uris` from the start). Size, media type and digest are in
    // the capture rows and crawl.log (bytes, mime and digest stay NULL), and the rest of via and
    // via_context matter only to a claim: the row's `uri_via` row is deleted (deleteVia), and
    // whole pages of those come free for new rows (issue 20: the frontier's share of the
    // database per URI).
    finish: db.prepare<[number, string | null, number], { queue_id: number }>(
      `UPDATE uris SET state = ${UriState.FINISHED}, status = ?, note = ?, not_before = NULL
       WHERE id = ? AND state = ${UriState.IN_FLIGHT} RETURNING queue_id`,
    ),
    deleteVia: db.prepare<[number]>('DELETE FROM uri_via WHERE id = ?'),
    requeue: db.prepare<[number, number, string | null, number], { queue_id: number }>(
      `UPDATE uris SET state = ${UriState.WAITING}, not_before = ?, attempts = attempts + 1, status = ?, note = ?
       WHERE id = ? AND state = ${UriState.IN_FLIGHT} RETURNING queue_id`,
    ),
    putBack: db.prepare<[number, number], { queue_id: number }>(
      `UPDATE uris SET state = ${UriState.WAITING}, not_before = ? WHERE id = ? AND state = ${UriState.IN_FLIGHT} RETURNING queue_id`,
    ),
    queueReleased: db.prepare<[number, number, number, number, number, number]>(
      `UPDATE queues SET in_flight = in_flight - ?, waiting = waiting + ?, done = done + ?, failed = failed + ?,
       ready_at = MAX(ready_at, ?) WHERE id = ?`,
    ),
    // Whether it changed a row is all releaseSlot needs: run().changes, not RETURNING (2.6–8 µs
    // a call against 12–18).
    queueSlotReleased: db.prepare<[number, number]>(
      `UPDATE queues SET in_flight = in_flight - 1, ready_at = MAX(ready_at, ?)
       WHERE id = (SELECT queue_id FROM uris WHERE id = ? AND state = ${UriState.IN_FLIGHT}) AND in_flight > 0`,
    ),

    // a live exclusion (dropQueued): the queued rows in discovery order, a batch after id ? at a time
    queuedBatch: db.prepare<[number, number], QueuedRow>(
      `SELECT uris.id AS id, url, hops_path, ${VIA} AS via, uri_via.via_context AS via_context, seed, state, queue_id FROM ${WITH_VIA}
       WHERE uris.id > ? AND state IN (${UriState.PENDING}, ${UriState.WAITING}) ORDER BY uris.id LIMIT ?`,
    ),
    dropQueuedUri: db.prepare<[number, string, number]>(
      `UPDATE uris SET state = ${UriState.FINISHED}, status = ?, note = ?, not_before = NULL
       WHERE id = ? AND state IN (${UriState.PENDING}, ${UriState.WAITING})`,
    ),
    queueDropped: db.prepare<[number, number, number, number]>('UPDATE queues SET pending = pending - ?, waiting = waiting - ?, failed = failed + ? WHERE id = ?'),

    // recovery
    inFlightByQueue: db.prepare<[], { queue_id: number; n: number }>(
      `SELECT queue_id, COUNT(*) AS n FROM uris WHERE state = ${UriState.IN_FLIGHT} GROUP BY queue_id`,
    ),
    releaseAll: db.prepare(`UPDATE uris SET state = ${UriState.PENDING} WHERE state = ${UriState.IN_FLIGHT}`),
    // Nothing runs during a recovery: every slot of the queue is free again (some leases may
    // have given theirs back already, see releaseSlot).
    queueRecovered: db.prepare<[number, number]>('UPDATE queues SET pending = pending + ?, in_flight = 0 WHERE id = ?'),
  };
}

/** The counters (frontier_stats) and what the snapshot reads: retries waiting, queued non-pages, claimable queues. */
function counterStatements(db: Database.Database) {
  return {
    stats: db.prepare<[], StatsRow>('SELECT pending, waiting, in_flight, done, failed, seen, queues FROM frontier_stats WHERE id = 1'),
    addStats: db.prepare<[number, number, number, number, number, number, number]>(
      `UPDATE frontier_stats SET pending = pending + ?, waiting = waiting + ?, in_flight = in_flight + ?,
       done = done + ?, failed = failed + ?, seen = seen + ?, queues = queues + ? WHERE id = 1`,
    ),
    // What the crawl waits for (the snapshot): waiting rows whose last attempt failed (a requeue
    // sets their status; a defer or a new row with notBefore leaves it NULL), read through the
    // uris_waiting index, so only waiting rows are visited; and the queued rows that cannot be
    // pages, through uris_pending_non_page and uris_waiting (once a page limit is reached the
    // crawl fetches those, so they are few; the rest of the queue is the pages it holds back).
    countRetryWaiting: db
      .prepare<[number], number>(`SELECT COUNT(*) FROM (SELECT 1 FROM uris WHERE state = ${UriState.WAITING} AND status IS NOT NULL LIMIT ?)`)
      .pluck(),
    retryWaiting: db.prepare<[number], RetryWaitingRow>(
      `SELECT url, queues.key AS queue_key, status, attempts, not_before FROM uris JOIN queues ON queues.id = uris.queue_id
       WHERE state = ${UriState.WAITING} AND status IS NOT NULL ORDER BY not_before, uris.id LIMIT ?`,
    ),
    countPendingNonPage: db.prepare<[], number>(`SELECT COUNT(*) FROM uris WHERE state = ${UriState.PENDING} AND NOT (${MAY_BE_PAGE_SQL})`).pluck(),
    countWaitingNonPage: db.prepare<[], number>(`SELECT COUNT(*) FROM uris WHERE state = ${UriState.WAITING} AND NOT (${MAY_BE_PAGE_SQL})`).pluck(),
    firstClaimable: db.prepare<[], { ready_at: number }>(`SELECT ready_at FROM queues WHERE ${CLAIMABLE} ORDER BY ready_at LIMIT 1`),
    countReady: db.prepare<[number], { n: number }>(`SELECT COUNT(*) AS n FROM queues WHERE ${CLAIMABLE} AND ready_at <= ?`),
    countClaimable: db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM queues WHERE ${CLAIMABLE}`),
  };
}
