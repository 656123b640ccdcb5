/**
 * Rewriting an HTML page's links for the mirror: every attribute the crawler's extractor reads
 * as a URL (html-link-rules.ts: href, src, srcset, poster, data-src …, plus `<link href>`,
 * `<form action>` and `<meta http-equiv=refresh>`), `url()` in `<style>` blocks and `style`
 * attributes. The rewriter decides each new value (relative path or absolute URL).
 *
 * Done on the source text with parse5's tokenizer and its source locations, so only the
 * attribute values that change are touched and the rest of the page stays byte for byte as
 * archived (after decoding). `<base href>` is removed: links are resolved against it here, and
 * left in the page it would send the rewritten relative links back to the web.
 *
 * The page is decoded with the charset a browser would pick (header, BOM, meta prescan) and
 * written back as UTF-8 with a byte order mark, which browsers honour above any `<meta charset>`
 * the page declares; offline there is no Content-Type header to carry the charset.
 */
import { Tokenizer, TokenizerMode } from 'parse5';
import type { Token, TokenHandler } from 'parse5';
import { sniffHtmlCharset } from '../extract/html-charset.ts';
import { attrRule, srcsetUrls } from '../extract/html-link-rules.ts';
import { refreshTarget } from '../extract/refresh-value.ts';
import { rewriteCss } from './mirror-css.ts';

/** New value for a raw URL found in the page, resolved against `base`; null leaves it alone. */
export type HtmlLinkRewriter = (raw: string, base: URL) => string | null;

const RAW_TEXT_STATE: Record<string, number> = {
  title: TokenizerMode.RCDATA,
  textarea: TokenizerMode.RCDATA,
  style: TokenizerMode.RAWTEXT,
  xmp: TokenizerMode.RAWTEXT,
  iframe: TokenizerMode.RAWTEXT,
  noembed: TokenizerMode.RAWTEXT,
  noframes: TokenizerMode.RAWTEXT,
  script: TokenizerMode.SCRIPT_DATA,
  plaintext: TokenizerMode.PLAINTEXT,
};

const BOM = '\ufeff';

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** The page with its links rewritten, or null when nothing needed to change. */
export function rewriteHtml(body: Buffer, contentType: string | undefined, pageUrl: string, rewrite: HtmlLinkRewriter): Buffer | null {
  const { encoding, bomLength } = sniffHtmlCharset(body, contentType);
  const text = new TextDecoder(encoding, { fatal: false, ignoreBOM: true }).decode(body.subarray(bomLength));
  const docUrl = URL.parse(pageUrl);
  if (docUrl === null) return null;
  const handler = new RewriteHandler(text, docUrl, rewrite);
  const tokenizer = new Tokenizer({ sourceCodeLocationInfo: true }, handler);
  handler.tokenizer = tokenizer;
  tokenizer.write(text, true);
  if (handler.edits.length === 0 && encoding === 'utf-8') return null;
  let out = '';
  let at = 0;
  for (const e of handler.edits.sort((a, b) => a.start - b.start)) {
    if (e.start < at) continue; // overlapping edits cannot happen; be safe anyway
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  out += text.slice(at);
  return Buffer.from(BOM + out, 'utf8');
}

function escapeAttr(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

class RewriteHandler implements TokenHandler {
  tokenizer: Tokenizer | null = null;
  readonly edits: Edit[] = [];
  readonly #text: string;
  readonly #rewrite: HtmlLinkRewriter;
  #base: URL;
  #sawBase = false;
  #rawText: string | null = null;
  #styleStart = -1;
  #foreign = 0;

  constructor(text: string, docUrl: URL, rewrite: HtmlLinkRewriter) {
    this.#text = text;
    this.#base = docUrl;
    this.#rewrite = rewrite;
  }

  onStartTag(token: Token.TagToken): void {
    const tag = token.tagName;
    const foreign = this.#foreign > 0;
    if (!foreign && tag === 'base') this.#onBase(token);
    for (const attr of token.attrs) this.#onAttr(token, tag, attr.name, attr.value, foreign);
    if (tag === 'svg' || tag === 'math') {
      if (!token.selfClosing) this.#foreign++;
    } else if (!foreign && !token.selfClosing) {
      const state = RAW_TEXT_STATE[tag];
      if (state !== undefined && this.tokenizer) {
        this.tokenizer.state = state as typeof this.tokenizer.state;
        this.#rawText = tag;
        if (tag === 'style') this.#styleStart = token.location?.endOffset ?? -1;
      }
    }
    if (this.tokenizer) this.tokenizer.inForeignNode = this.#foreign > 0;
  }

  onEndTag(token: Token.TagToken): void {
    const tag = token.tagName;
    if (this.#rawText !== null && tag === this.#rawText) {
      if (tag === 'style' && this.#styleStart >= 0 && token.location) this.#onCss(this.#styleStart, token.location.startOffset);
      this.#rawText = null;
      this.#styleStart = -1;
    } else if ((tag === 'svg' || tag === 'math') && this.#foreign > 0) {
      this.#foreign--;
    }
    if (this.tokenizer) this.tokenizer.inForeignNode = this.#foreign > 0;
  }

  onEof(): void {
    if (this.#rawText === 'style' && this.#styleStart >= 0) this.#onCss(this.#styleStart, this.#text.length);
  }

  onCharacter(): void {}
  onWhitespaceCharacter(): void {}
  onNullCharacter(): void {}
  onComment(): void {}
  onDoctype(): void {}

  #onBase(token: Token.TagToken): void {
    const href = token.attrs.find((a) => a.name === 'href');
    const loc = token.location?.attrs?.href;
    if (!href || !loc) return;
    if (!this.#sawBase) {
      const u = URL.parse(href.value.trim(), this.#base);
      if (u && (u.protocol === 'http:' || u.protocol === 'https:')) this.#base = u;
      this.#sawBase = true;
    }
    this.edits.push({ start: loc.startOffset, end: loc.endOffset, text: '' });
  }

  #onAttr(token: Token.TagToken, tag: string, name: string, value: string, foreign: boolean): void {
    const loc = token.location?.attrs?.[name];
    if (!loc || (tag === 'base' && name === 'href')) return;
    let next: string | null = null;
    if (!foreign && ((tag === 'link' && name === 'href') || (tag === 'form' && name === 'action'))) {
      next = this.#rewrite(value, this.#base);
    } else if (!foreign && tag === 'meta' && name === 'content' && /^\s*refresh\s*$/i.test(token.attrs.find((a) => a.name === 'http-equiv')?.value ?? '')) {
      const target = refreshTarget(value);
      const to = target === null ? null : this.#rewrite(target, this.#base);
      if (target !== null && to !== null) next = value.replace(target, to);
    } else {
      const rule = attrRule(tag, name, foreign);
      if (rule?.kind === 'url') next = this.#rewrite(value, this.#base);
      else if (rule?.kind === 'srcset') next = this.#srcset(value);
      else if (rule?.kind === 'css') {
        const r = rewriteCss(value, (raw) => this.#rewrite(raw, this.#base));
        next = r.changed ? r.css : null;
      }
    }
    if (next === null || next === value) return;
    this.edits.push({ start: loc.startOffset, end: loc.endOffset, text: `${name}="${escapeAttr(next)}"` });
  }

  /** Each candidate URL of a srcset, replaced in place (descriptors and commas kept). */
  #srcset(value: string): string | null {
    let out = '';
    let at = 0;
    let changed = false;
    for (const url of srcsetUrls(value)) {
      const i = value.indexOf(url, at);
      if (i < 0) continue;
      const next = this.#rewrite(url, this.#base);
      out += value.slice(at, i) + (next ?? url);
      at = i + url.length;
      if (next !== null && next !== url) changed = true;
    }
    return changed ? out + value.slice(at) : null;
  }

  #onCss(start: number, end: number): void {
    const r = rewriteCss(this.#text.slice(start, end), (raw) => this.#rewrite(raw, this.#base));
    if (r.changed) this.edits.push({ start, end, text: r.css });
  }
}
