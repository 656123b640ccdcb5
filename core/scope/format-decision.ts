/**
 * "Explain this decision" as text lines, for `trove scope test --explain`, logs and the UI:
 *
 *   REJECT
 *   REJECT by exclude-regex: matched /calendar/ (rule 7)
 *   trace:
 *      1. reject-all      REJECT  nothing has accepted this URL yet
 *      2. scope-prefix    ACCEPT  under http://(com,example,)/ (seed https://example.com/)
 *      …
 * The deciding rule is marked with `>`. When nothing accepted the URL, the second line names
 * why ("REJECT: other host cdn.example.net (prefix scope of seed https://example.com/)") and
 * the trace shows reject-all standing.
 */
import type { Decision } from './scope-types.ts';

export function formatDecision(d: Decision): string[] {
  const lines = [d.decision, d.reason, 'trace:'];
  const deciding = lastNonPass(d);
  const nameWidth = Math.max(0, ...d.trace.map((t) => t.rule.length));
  const numWidth = String(d.trace.length).length;
  d.trace.forEach((t, i) => {
    const mark = i === deciding ? '>' : ' ';
    const num = String(i + 1).padStart(numWidth);
    const reason = t.reason ? `  ${t.reason}` : '';
    lines.push(`${mark} ${num}. ${t.rule.padEnd(nameWidth)}  ${t.result.padEnd(6)}${reason}`.trimEnd());
  });
  return lines;
}

function lastNonPass(d: Decision): number {
  for (let i = d.trace.length - 1; i >= 0; i--) if (d.trace[i]!.result !== 'PASS') return i;
  return -1;
}
