/**
 * Where a URL's file goes in a mirror folder, the way HTTrack users expect: `host/path/file`,
 * `index.html` for a directory URL, the query string hashed into the name, an extension from the
 * MIME type when the name has none (or one a browser would misread offline: `x.php` served as
 * HTML becomes `x.php.html`).
 *
 * Every segment is made safe for any file system: percent-escapes decoded, then characters that
 * are illegal or dangerous on Windows, macOS or Linux (`<>:"/\|?*`, control characters) replaced,
 * `.`/`..`/empty segments and Windows device names (CON, NUL, COM1…) renamed, trailing dots and
 * spaces replaced, long names cut with a hash. So no URL can name a path outside the folder, and
 * export-mirror.ts checks containment again before writing.
 */
import { createHash } from 'node:crypto';
import { mediaType } from '../formats/media-type.ts';

/** Canonical extension for a MIME type, and the extensions a browser also takes for it. */
const MIME_EXT: Record<string, [string, ...string[]]> = {
  'text/html': ['html', 'htm', 'shtml'],
  'application/xhtml+xml': ['xhtml', 'xht', 'html', 'htm'],
  'text/css': ['css'],
  'application/javascript': ['js', 'mjs'],
  'text/javascript': ['js', 'mjs'],
  'application/x-javascript': ['js', 'mjs'],
  'application/json': ['json'],
  'application/ld+json': ['jsonld', 'json'],
  'application/xml': ['xml'],
  'text/xml': ['xml'],
  'application/rss+xml': ['rss', 'xml'],
  'application/atom+xml': ['atom', 'xml'],
  'text/plain': ['txt', 'text', 'md', 'csv', 'log'],
  'text/csv': ['csv'],
  'application/pdf': ['pdf'],
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg', 'jpe', 'jfif'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'image/avif': ['avif'],
  'image/svg+xml': ['svg', 'svgz'],
  'image/x-icon': ['ico'],
  'image/vnd.microsoft.icon': ['ico'],
  'image/bmp': ['bmp'],
  'font/woff': ['woff'],
  'font/woff2': ['woff2'],
  'font/ttf': ['ttf'],
  'font/otf': ['otf'],
  'application/font-woff': ['woff'],
  'application/vnd.ms-fontobject': ['eot'],
  'audio/mpeg': ['mp3'],
  'audio/ogg': ['ogg', 'oga'],
  'video/mp4': ['mp4', 'm4v'],
  'video/webm': ['webm'],
  'application/wasm': ['wasm'],
  'application/zip': ['zip'],
};

const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
const UNSAFE = /[\u0000-\u001f\u007f<>:"/\\|?*]/g;
/** Longest segment kept as it is (bytes); longer ones are cut and get a hash. */
const MAX_SEGMENT = 120;

/** The extensions of a media type (canonical first), or null when it has no known one. */
export function extensionsFor(mime: string | null): readonly string[] | null {
  if (!mime) return null;
  return MIME_EXT[mediaType(mime) ?? ''] ?? null;
}

function shortHash(s: string, n = 10): string {
  return createHash('sha1').update(s).digest('hex').slice(0, n);
}

/** One path segment (percent-encoded as in a URL, unless `decoded`) made safe to create on any file system. */
export function safeSegment(raw: string, decoded = false): string {
  let s = raw;
  if (!decoded) s = decodeSegment(raw);
  s = s.replace(UNSAFE, '_');
  if (s === '' || s === '.') return '_';
  if (s === '..') return '__';
  s = s.replace(/[. ]+$/, (m) => '_'.repeat(m.length));
  if (WINDOWS_DEVICE.test(s)) s = `_${s}`;
  if (Buffer.byteLength(s) > MAX_SEGMENT) {
    const { stem, ext } = splitExt(s);
    let cut = stem;
    while (Buffer.byteLength(cut) > MAX_SEGMENT - 24) cut = cut.slice(0, -1);
    s = `${cut}_${shortHash(raw)}${ext ? `.${ext}` : ''}`;
  }
  return s;
}

/** `name.ext` → stem and extension (1–8 letters or digits), or no extension. */
export function splitExt(name: string): { stem: string; ext: string | null } {
  const m = /^(.+)\.([A-Za-z0-9]{1,8})$/.exec(name);
  return m ? { stem: m[1]!, ext: m[2]! } : { stem: name, ext: null };
}

/** The host folder: `example.org`, `127.0.0.1_8080` (a non-default port after `_`). */
export function hostFolder(url: URL): string {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return safeSegment(url.port ? `${host}_${url.port}` : host);
}

/**
 * The path segments (host folder first, file name last) for a URL captured with `mime`. The
 * caller resolves collisions (mirror-plan.ts).
 */
export function mirrorSegments(url: URL, mime: string | null): string[] {
  const parts = url.pathname.split('/').slice(1);
  const last = parts.pop() ?? '';
  const dirs = parts.map((p) => safeSegment(p));
  const exts = extensionsFor(mime);
  let { stem, ext } = splitExt(last === '' ? 'index' : decodeSegment(last));
  if (url.search.length > 1) stem = `${stem}_${shortHash(url.search)}`;
  if (last === '' && !exts) ext = 'html';
  let file = ext ? `${stem}.${ext}` : stem;
  if (exts && !(ext && exts.includes(ext.toLowerCase()))) file = `${file}.${exts[0]}`;
  return [hostFolder(url), ...dirs, safeSegment(file, true)];
}

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // not valid percent-encoding: kept as written
  }
}
