/**
 * Read-only views of the frontier for the monitor and for reports, beside the statements the
 * crawl writes with (frontier-statements.ts): a queue's URIs in the order they will be claimed,
 * paged; the queued URIs an exclusion pattern would match; and what a crawl report counts (URIs
 * not finished or failed, and whether those may be pages; the seeds, where a seed redirected). They run on a reader's own
 * connection (WAL), so they never wait for, nor hold up, the crawl worker's transactions. An
 * archive made only by imports has the same (empty) tables, so every view answers "nothing".
 */
import type Database from 'better-sqlite3';
import type { MatchSample, QueuedPage, QueuedUri } from '../api/app-types.ts';
import { UriState, VIA, WITH_VIA } from './frontier-statements.ts';
import { mayBePage } from './page-hops.ts';

interface Row {
  id: number;
  url: string;
  hops_path: string;
  via: string | null;
  directive: number;
  not_before: number | null;
  attempts: number;
}

// Queued rows with their via (frontier-statements.ts WITH_VIA: in uri_via until they finish).
const COLS = `uris.id AS id, url, hops_path, ${VIA} AS via, directive, not_before, attempts`;

/** A URI a report counts: still to do (`finished` false), or finished with a failure (status <= 0). */
export interface ReportUri {
  id: number;
  url: string;
  /** Final outcome once finished (or the last attempt's while waiting). */
  status: number | null;
  finished: boolean;
  /** Whether it may be a page (page-hops.ts): a reached page limit holds such URIs back. */
  mayBePage: boolean;
}

/** A seed's row: its outcome, once finished. */
export interface SeedUri {
  id: number;
  url: string;
  status: number | null;
  finished: boolean;
}

/** The frontier as readers see it: the monitor's queue pages and previews, a report's figures. */
export interface FrontierView {
  queuedPage(queue: string, limit: number, after: string | null): QueuedPage;
  queuedMatching(re: RegExp, samples: number, cap?: number): MatchSample;
  /** URIs not yet finished, or finished with a failure (status <= 0), with id > `after`, in id order. */
  unfinishedOrFailed(after: number, limit: number): ReportUri[];
  /** The seeds, in discovery order. */
  seeds(): SeedUri[];
  /** The URL a redirect from `url` was scheduled to (the first URI discovered from it by an R hop), or null. */
  redirectFrom(url: string): string | null;
}

export function createFrontierView(db: Database.Database): FrontierView {
  let report: ReturnType<typeof reportStatements> | null = null;
  const st = () => (report ??= reportStatements(db));
  const uri = (r: { id: number; url: string; status: number | null; state: number }) => ({
    id: r.id,
    url: r.url,
    status: r.status,
    finished: r.state === UriState.FINISHED,
  });
  return {
    queuedPage: (queue, limit, after) => queuedPage(db, queue, limit, after),
    queuedMatching: (re, samples, cap) => queuedMatching(db, re, samples, cap),
    unfinishedOrFailed: (after, limit) => st().unfinishedOrFailed.all(after, limit).map((r) => ({ ...uri(r), mayBePage: mayBePage(r.hops_path) })),
    seeds: () => st().seeds.all().map(uri),
    redirectFrom: (url) => st().redirectFrom.get(url) ?? null,
  };
}

function reportStatements(db: Database.Database) {
  type UriRow = { id: number; url: string; status: number | null; state: number };
  return {
    unfinishedOrFailed: db.prepare<[number, number], UriRow & { hops_path: string }>(
      `SELECT id, url, status, state, hops_path FROM uris WHERE id > ? AND (state < ${UriState.FINISHED} OR status <= 0) ORDER BY id LIMIT ?`,
    ),
    seeds: db.prepare<[], UriRow>('SELECT id, url, status, state FROM uris WHERE seed = 1 ORDER BY id'),
    redirectFrom: db.prepare<[string], string>(`SELECT url FROM uris WHERE via = ? AND hops_path LIKE '%R' ORDER BY id LIMIT 1`).pluck(),
  };
}

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
            .prepare<[number, number], Row>(`SELECT ${COLS} FROM ${WITH_VIA} WHERE queue_id = ? AND state = ${UriState.PENDING} ORDER BY directive DESC, uris.id LIMIT ?`)
            .all(q.id, limit + 1)
        : db
            .prepare<[number, number, number, number, number], Row>(
              `SELECT ${COLS} FROM ${WITH_VIA} WHERE queue_id = ? AND state = ${UriState.PENDING}
               AND (directive < ? OR (directive = ? AND uris.id > ?)) ORDER BY directive DESC, uris.id LIMIT ?`,
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
        `SELECT ${COLS} FROM ${WITH_VIA} WHERE state = ${UriState.WAITING} AND queue_id = ?
         AND (not_before > ? OR (not_before = ? AND uris.id > ?)) ORDER BY not_before, uris.id LIMIT ?`,
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
