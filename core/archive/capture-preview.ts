/**
 * Captures an exclusion pattern would have kept out: the monitor shows them before an exclude
 * is applied ("this rule matches 412 captures you already have"). A scan of the capture rows in
 * capture order — a regex cannot use an index — run on the reader's own connection.
 */
import type { MatchSample } from '../api/app-types.ts';
import type { CaptureIndex } from './capture-index.ts';

/** Response and revisit records whose target URI `re` matches: how many, and the first `samples`; at most `cap` rows scanned. */
export function capturesMatching(index: CaptureIndex, re: RegExp, samples: number, cap = Infinity): MatchSample {
  const out: MatchSample = { count: 0, complete: true, samples: [] };
  let scanned = 0;
  for (const uri of index.responseUris()) {
    if (++scanned > cap) {
      out.complete = false;
      break;
    }
    if (!re.test(uri)) continue;
    out.count++;
    if (out.samples.length < samples) out.samples.push(uri);
  }
  return out;
}
