/**
 * `--capture auto`'s look at a page's HTTP body: which template it is (so that a sample of a
 * template's pages rendered in a browser decides for all of them), the signs in the body alone
 * that a browser is needed (an empty application root, `<noscript>` content, scripts but next to
 * no text), and whether the body shows HTTP has the whole page (no sample needed).
 *
 * The template is the page's host and its DOM skeleton: the containers (div, main, nav,
 * header…, not content's sections and lists) of the first three levels under <body> with their classes
 * and layout ids (root, app, content…), repeats folded, and the external scripts it loads. The URL pattern is left out of the key on purpose: on a
 * static site one skeleton serves every folder (the Python docs: /library/*, /tutorial/*,
 * /reference/*… are one Sphinx layout), and keying by folder made fifteen templates of forty
 * pages, each rendered once for nothing. Script-built sites differ where it matters: the app
 * root, the scripts.
 *
 * Read with a small tag scan rather than the extractor's parser: the key must cost next to
 * nothing on every page of a static site (a regex pass over the body, well under a millisecond
 * on a Python docs page, where a second parse5 pass costs tens), and it is a fingerprint, not a
 * document: a tag miscounted makes at worst one template more, rendered once more.
 */
import { createHash } from 'node:crypto';

/** Ids that name a layout's part, kept in the key (other ids name content: a section's anchor). */
const LAYOUT_ID = /^(root|app|__next|__nuxt|svelte|application|main-app|main|content|header|footer|nav|sidebar)$/i;
const DEPTH = 3;
const RAW = new Set(['script', 'style', 'template', 'noscript', 'textarea']);
/** The tags the skeleton reads: containers, and raw-text elements whose content is jumped over. */
const SKELETON_TAG = /<(\/?)(body|div|main|nav|header|footer|aside|iframe|script|style|template|noscript|textarea)\b([^>]*)>/gi;

/** Where `</name>` starts after `from`, case-insensitively, without lower-casing the document. */
function indexOfClose(html: string, name: string, from: number): number {
  const re = new RegExp(`</${name}\\s*>`, 'gi');
  re.lastIndex = from;
  return re.exec(html)?.index ?? -1;
}

/** The template key of an HTML body fetched from `host`. */
export function pageTemplate(host: string, html: string): string {
  const parts: string[] = [];
  const scripts = new Set<string>();
  for (const m of html.matchAll(/<script\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)/gi)) scripts.add(m[1]!.replace(/[?#].*$/, '').replace(/^.*\//, ''));
  let depth = -1;
  let last = '';
  const re = new RegExp(SKELETON_TAG);
  re.lastIndex = Math.max(0, html.search(/<body[\s>]/i));
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const name = m[2]!.toLowerCase();
    if (RAW.has(name)) {
      if (!m[1]) {
        const close = indexOfClose(html, name, re.lastIndex);
        re.lastIndex = close < 0 ? html.length : close + 1;
      }
      continue;
    }
    if (m[1]) {
      depth = Math.max(-1, depth - 1);
      continue;
    }
    if (m[3]!.trimEnd().endsWith('/')) continue;
    depth++;
    if (depth === 0 || depth > DEPTH) continue;
    const rawId = /\bid\s*=\s*["']?([^"'\s>]+)/i.exec(m[3]!)?.[1] ?? '';
    const id = LAYOUT_ID.test(rawId) ? rawId : '';
    const cls = (/\bclass\s*=\s*["']([^"']*)["']/i.exec(m[3]!)?.[1] ?? '').trim().split(/\s+/).sort().join('.');
    const part = `${depth}${name}${id ? `#${id}` : ''}${cls ? `.${cls}` : ''}`;
    if (part !== last) parts.push(part);
    last = part;
  }
  const skeleton = createHash('sha1').update(`${parts.join(' ')}|${[...scripts].sort().join(' ')}`).digest('hex').slice(0, 16);
  return `${host} ${skeleton}`;
}

/**
 * Signs in the body alone that the page is built by script, each a `rendered:<reason>` name:
 * `app-root` (an empty #root/#app/#__next… element), `noscript` (a <noscript> with words in it),
 * `script-only` (scripts, and under 200 characters of text without them).
 */
export function renderSignals(html: string): string[] {
  const out: string[] = [];
  if (/<(div|main|section)\b[^>]*\bid\s*=\s*["']?(root|app|__next|__nuxt|svelte|application|main-app)["'\s>][^>]*>\s*<\/\1\s*>/i.test(html)) out.push('app-root');
  for (const m of html.matchAll(/<noscript\b[^>]*>([\s\S]*?)<\/noscript\s*>/gi)) {
    if (/[a-zA-Z]{3,}(\s+[a-zA-Z]{2,}){2,}/.test(m[1]!.replace(/<[^>]*>/g, ' '))) {
      out.push('noscript');
      break;
    }
  }
  if (/<script\b/i.test(html) && textUpTo(html, 200) < 200) out.push('script-only');
  return out;
}

/** Script-driven lazy loading: the real URL waits in a data- attribute (or a `lazyload` class) for a script to set it. */
const LAZY_MARK = [/data-(?:src|srcset|lazy|lazy-src|original|bg|background)\s*=/i, /\bclass\s*=\s*["'][^"'>]*\blazy/i];
/** An inline script that loads or builds something: a request, a new element, markup written, a URL set. */
const LOADING_SCRIPT = /\bfetch\s*\(|XMLHttpRequest|getJSON|\.ajax\s*\(|IntersectionObserver|\bimport\s*\(|createElement|\.src\s*=|\.srcset\s*=|innerHTML|insertAdjacentHTML|document\.write|url\(|new\s+(Worker|EventSource|WebSocket)\b|serviceWorker/;
/** Text a page must show over HTTP, when it loads external scripts, to be read as served whole. */
const RICH_TEXT = 500;

/**
 * The body alone shows that HTTP has the whole page, so that no sample is rendered for it: no
 * sign (`renderSignals`), no lazy-load mark, no inline script that loads or builds anything, and
 * either no external script at all or at least 500 characters of text (a document whose
 * content is in its HTML: the Python docs' scripts highlight, collapse and copy). What the
 * external scripts of a text-rich page do is not read, so what they load is missed (the docs'
 * py-modindex.html: the collapse toggle's plus.png, which a template's sample would not have
 * shown either); the bench prints this rule's precision and recall against rendered truth
 * (fixture site and Python docs, bench/browser-bench.ts).
 */
export function servedWhole(html: string): boolean {
  if (LAZY_MARK.some((re) => re.test(html))) return false;
  let external = false;
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    const type = /\btype\s*=\s*["']?([^"'\s>]+)/i.exec(m[1]!)?.[1]?.toLowerCase();
    // Data blocks (JSON, ld+json, templates) do not run.
    if (type && !/^(text\/javascript|application\/javascript|module)$/.test(type)) continue;
    if (/\bsrc\s*=/i.test(m[1]!)) external = true;
    else if (LOADING_SCRIPT.test(m[2]!)) return false;
  }
  return !external || textUpTo(html, RICH_TEXT) >= RICH_TEXT;
}

/** Characters of text between tags (whitespace, and raw-text elements' content, left out), counted up to `max`. */
function textUpTo(html: string, max: number): number {
  let n = 0;
  const re = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*>([^<]*)/g;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const name = m[2]!.toLowerCase();
    if (!m[1] && RAW.has(name)) {
      const close = indexOfClose(html, name, re.lastIndex - m[3]!.length);
      re.lastIndex = close < 0 ? html.length : close + 1;
      continue;
    }
    n += m[3]!.replace(/\s+|&[a-z#0-9]+;/gi, '').length;
    if (n >= max) break;
  }
  return n;
}

/** What a rendering found against what HTTP extraction found, for one sampled page. */
export interface RenderEvidence {
  /** In-scope URLs the browser reached (live-DOM links, requests made by script) that HTTP extraction did not find. */
  moreUrls: string[];
  httpTextLength: number;
  browserTextLength: number;
}

/** A template renders when its sample showed more in-scope URLs, or a fifth more text (and 200 characters) than HTTP. */
export function needsBrowser(e: RenderEvidence): boolean {
  return e.moreUrls.length > 0 || e.browserTextLength > e.httpTextLength * 1.2 + 200;
}

/** Text length as both sides are compared: whitespace runs as one. */
export function textLength(text: string): number {
  return text.replace(/\s+/g, ' ').trim().length;
}
