/**
 * The page the replay view shows for a URL the archive does not hold. It must be obviously not
 * the site (so nobody mistakes it for an archived 404), load nothing from anywhere (no scripts,
 * no images, nothing the live web could answer), and offer the nearby captures there are.
 */
import type { NotArchived } from './replay-types.ts';

export interface NotArchivedPage {
  status: 404;
  statusText: string;
  headers: [string, string][];
  body: Buffer;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `20240305102030` → `2024-03-05 10:20:30 UTC`. */
function formatTs(ts: string): string {
  if (!/^\d{14}$/.test(ts)) return ts;
  return `${ts.slice(0, 4)}-${ts.slice(4, 6)}-${ts.slice(6, 8)} ${ts.slice(8, 10)}:${ts.slice(10, 12)}:${ts.slice(12, 14)} UTC`;
}

export function notArchivedPage(nf: NotArchived): NotArchivedPage {
  const nearby = (nf.nearest ?? [])
    .map((n) => `<li><a href="${escapeHtml(n.url)}">${escapeHtml(n.url)}</a> <span>${escapeHtml(formatTs(n.ts))}</span></li>`)
    .join('\n');
  const when = nf.at ? `<p>Asked for a capture around ${escapeHtml(formatTs(nf.at))}.</p>` : '';
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="robots" content="noindex">
<title>Not archived</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; margin: 3em auto; max-width: 42em; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; } code { word-break: break-all; background: #f3f3f3; padding: 0 .2em; }
li span { color: #666; font-size: .9em; }
</style>
</head>
<body>
<h1>Not archived</h1>
<p>Trove has no capture of <code>${escapeHtml(nf.url)}</code> in this archive. Nothing was fetched from the live web.</p>
${when}
${nearby ? `<p>Captures nearby:</p>\n<ul>\n${nearby}\n</ul>` : ''}
</body>
</html>
`;
  const body = Buffer.from(html, 'utf8');
  return {
    status: 404,
    statusText: 'Not Archived',
    headers: [
      ['Content-Type', 'text/html; charset=utf-8'],
      ['Content-Length', String(body.length)],
      // Nothing on this page may load anything, from the archive or elsewhere.
      ['Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'"],
      ['Cache-Control', 'no-store'],
      ['X-Trove-Not-Archived', '1'],
    ],
    body,
  };
}
