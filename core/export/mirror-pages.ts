/**
 * The two pages the mirror writes itself: the root `index.html` (the seeds, then one entry per
 * site folder, as HTTrack's top index does) and the placeholder for a URL whose capture could
 * not be replayed. Plain, dependency-free HTML in UTF-8.
 */
import { relativeLink } from './mirror-links.ts';

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): Buffer {
  return Buffer.from(
    `<!doctype html>\n<html><head><meta charset="utf-8"><title>${esc(title)}</title></head>\n<body>\n${body}\n</body></html>\n`,
    'utf8',
  );
}

export function mirrorRootIndex(seeds: { url: string; path: string }[], hosts: { host: string; path: string }[]): Buffer {
  const li = (href: string, text: string) => `<li><a href="${esc(href)}">${esc(text)}</a></li>`;
  const parts = ['<h1>Archived sites</h1>'];
  if (seeds.length > 0) parts.push('<h2>Start pages</h2>', '<ul>', ...seeds.map((s) => li(relativeLink('index.html', s.path), s.url)), '</ul>');
  parts.push('<h2>Sites</h2>', '<ul>', ...hosts.map((h) => li(relativeLink('index.html', h.path), h.host)), '</ul>');
  return page('Archived sites', parts.join('\n'));
}

export function placeholderPage(url: string): Buffer {
  return page('Not archived', `<p>This archive holds no replayable capture of <a href="${esc(url)}">${esc(url)}</a>.</p>`);
}
