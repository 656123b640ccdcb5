/**
 * The export dialog's "done" line: the export's counts as words, each noun agreeing with its
 * number ("1 WARC · 12 captures", not "1 warcs"). The counts are core's (ExportResult.summary);
 * the words for a count are here, the one place the dialog reads them from.
 */
import { formatNumber } from './format.ts';

/** Summary key → [one, many]; a key not listed is shown as core names it. */
const NOUNS: Record<string, [string, string]> = {
  warcs: ['WARC', 'WARCs'],
  captures: ['capture', 'captures'],
  pages: ['page', 'pages'],
  lines: ['line', 'lines'],
  records: ['record', 'records'],
  files: ['file', 'files'],
  materialized: ['revisit made whole', 'revisits made whole'],
  rewritten: ['link rewritten', 'links rewritten'],
  placeholders: ['placeholder', 'placeholders'],
  'WARCs with their fixity from capture': ['WARC with its fixity from capture', 'WARCs with their fixity from capture'],
  'WARCs hashed now': ['WARC hashed now', 'WARCs hashed now'],
};

export function exportSummaryText(summary: Record<string, string | number | boolean>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(summary)) {
    if (typeof value === 'number') {
      const [one, many] = NOUNS[key] ?? [key, key];
      parts.push(`${formatNumber(value)} ${value === 1 ? one : many}`);
    } else if (typeof value === 'boolean') {
      if (value) parts.push(key);
    } else if (key === 'index' || key === 'signature') {
      // "zipnum index", "P-384 signature".
      parts.push(`${value} ${key}`);
    } else {
      parts.push(`${key}: ${value}`);
    }
  }
  return parts.join(' · ');
}
