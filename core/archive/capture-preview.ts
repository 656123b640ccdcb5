/**
 * Captures an exclusion pattern would have kept out: the monitor shows them before an exclude
 * is applied ("this rule matches 412 captures you already have"). A scan of the capture rows in
 * capture order — a regex cannot use an index — run on the reader's own connection.
 */
import type Database from 'better-sqlite3';
import type { MatchSample } from '../api/app-types.ts';

/** Response and revisit records whose target URI `re` matches: how many, and the first `samples`; at most `cap` rows scanned. */
export function capturesMatching(db: Database.Database, re: RegExp, samples: number, cap = Infinity): MatchSample {
  const out: MatchSample = { count: 0, complete: true, samples: [] };
  let scanned = 0;
  const rows = db.prepare<[], { target_uri: string }>(
    `SELECT target_uri FROM records WHERE record_type IN ('response', 'revisit') AND target_uri IS NOT NULL ORDER BY id`,
  );
  for (const { target_uri } of rows.iterate()) {
    if (++scanned > cap) {
      out.complete = false;
      break;
    }
    if (!re.test(target_uri)) continue;
    out.count++;
    if (out.samples.length < samples) out.samples.push(target_uri);
  }
  return out;
}
