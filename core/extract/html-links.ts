/**
 * Outlinks, title, visible text and page-level directives from an HTML document.
 *
 * Built on parse5's Tokenizer (exported by parse5 8), not on its tree builder: a crawler needs
 * attributes and text, not a DOM. Tokenizing is a flat loop over the input, so a page nested
 * 100,000 levels deep costs no more than a flat one (no tree, no recursion), and the input is
 * decoded and fed in 1 MiB chunks, so memory stays near the size of the body plus what is kept
 * (links up to maxLinks, text up to 1 MiB). Once both are full the rest of the page is skipped.
 *
 * The few tree-builder decisions the tokenizer needs are made here: raw-text elements (script,
 * style, title, textarea, iframe …) switch the tokenizer state as the HTML parser would, and
 * `<svg>`/`<math>` content is tracked so CDATA sections and SVG links are read correctly.
 * `<noscript>` is read as markup (the scripting-disabled view) so fallback links and images are
 * found, as Heritrix's extractor finds them.
 *
 * `<base href>` applies from where it appears: links before it resolve against the document URL,
 * as resources fetched during parsing do in a browser. Only the first `<base href>` counts.
 */
import { Tokenizer, TokenizerMode } from 'parse5';
import type { Token, TokenHandler } from 'parse5';
import { OutlinkList } from './outlink.ts';
import type { Outlink } from './outlink.ts';
import { sniffHtmlCharset } from './html-charset.ts';
import { scanCssUrls, CSS_CONTEXT } from './css-links.ts';
import { attrRule, linkRelHop, scriptStringUrls, srcsetUrls } from './html-link-rules.ts';
import { refreshTarget } from './refresh-value.ts';
import { parseRobotsDirectives } from '../robots/meta-robots.ts';
import { TextCollector, isInlineElement } from './text-collector.ts';

export interface HtmlExtraction {
  outlinks: Outlink[];
  title: string | null;
  /** Visible text, whitespace collapsed, at most 1 MiB (UTF-16 code units), for full-text search. */
  text: string;
  /** From `<meta name=robots>` and `<meta name=AGENT-TOKEN>`. */
  metaRobots: { nofollow: boolean; noindex: boolean };
  /** Absolute target of `<meta http-equiv=refresh>`, when there is one. */
  metaRefresh?: string;
  /** The first `<base href>`, resolved, or null. */
  baseHref: string | null;
  /** The encoding the body was decoded with (WHATWG name). */
  charset: string;
  truncatedLinks: boolean;
  /** Values that looked like URLs but did not parse. */
  skipped: number;
}

export interface HtmlOptions {
  baseUrl: string;
  contentType?: string;
  maxLinks: number;
  /** Our robots agent token: `<meta name=TOKEN content=nofollow>` then applies like `name=robots`. */
  agentToken?: string;
}

export const MAX_TEXT_CHARS = 1024 * 1024;
const MAX_TITLE_CHARS = 4096;
const MAX_SCRIPT_ATTR_CHARS = 64 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/** Elements whose content the HTML parser reads as raw text, and the tokenizer state it uses. */
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

/** Start tags that end foreign (SVG/MathML) content: WHATWG "parsing main inforeign", breakout list. */
const BREAKOUT_TAGS = new Set(
  'b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var'.split(' '),
);
const FONT_BREAKOUT_ATTRS = new Set(['color', 'face', 'size']);

export function extractHtml(body: Buffer, opts: HtmlOptions): HtmlExtraction {
  const charset = sniffHtmlCharset(body, opts.contentType).encoding;
  const handler = new LinkHandler(opts);
  const tokenizer = new Tokenizer({ sourceCodeLocationInfo: false }, handler);
  handler.tokenizer = tokenizer;
  if (handler.docUrl !== null) {
    const decoder = new TextDecoder(charset, { fatal: false });
    let stopped = false;
    for (let off = 0; off < body.length; off += CHUNK_BYTES) {
      tokenizer.write(decoder.decode(body.subarray(off, off + CHUNK_BYTES), { stream: true }), false);
      if (handler.done) {
        stopped = true;
        break;
      }
    }
    if (!stopped) tokenizer.write(decoder.decode(), true);
  }
  return {
    outlinks: handler.links.outlinks,
    title: handler.title(),
    text: handler.text.toString(),
    metaRobots: handler.robots,
    ...(handler.metaRefresh !== undefined ? { metaRefresh: handler.metaRefresh } : {}),
    baseHref: handler.baseHref,
    charset,
    truncatedLinks: handler.links.truncated,
    skipped: handler.links.skipped,
  };
}

class LinkHandler implements TokenHandler {
  tokenizer: Tokenizer | null = null;
  readonly links: OutlinkList;
  readonly text = new TextCollector(MAX_TEXT_CHARS);
  readonly robots = { nofollow: false, noindex: false };
  readonly docUrl: URL | null;
  metaRefresh: string | undefined;
  baseHref: string | null = null;
  private base: URL | null;
  private readonly agent: string | null;

  /** The raw-text element we are inside (its end tag closes it), or null. */
  private rawText: string | null = null;
  private cssParts: string[] = [];
  private titleParts: string[] | null = null;
  private titleLength = 0;
  /** Inside the first `<title>`: later ones (and SVG titles) are not the document's title. */
  private collectingTitle = false;
  /** Open `<noscript>`/`<template>` elements: their text is not visible. */
  private hiddenDepth = 0;
  /** Open foreign-content elements (`svg`, `math`) and HTML integration points inside them. */
  private readonly foreign: ('svg' | 'math' | 'html')[] = [];

  constructor(opts: HtmlOptions) {
    this.links = new OutlinkList(opts.maxLinks);
    this.docUrl = URL.parse(opts.baseUrl);
    this.base = this.docUrl;
    this.agent = opts.agentToken?.trim().toLowerCase() || null;
  }

  /** Nothing more worth reading: links capped and text full. */
  get done(): boolean {
    return this.links.truncated && this.text.full;
  }

  title(): string | null {
    if (this.titleParts === null) return null;
    const t = this.titleParts.join('').replace(/\s+/g, ' ').trim();
    return t === '' ? null : t;
  }

  private get inForeign(): boolean {
    const top = this.foreign[this.foreign.length - 1];
    return top === 'svg' || top === 'math';
  }

  onStartTag(token: Token.TagToken): void {
    const tag = token.tagName;
    // HTML elements such as <p>, <div> or <img> inside <svg>/<math> close the foreign content, as
    // the HTML parser's "breakout" rule does; an unclosed <svg> must not swallow the page.
    if (this.inForeign && (BREAKOUT_TAGS.has(tag) || (tag === 'font' && token.attrs.some((a) => FONT_BREAKOUT_ATTRS.has(a.name))))) {
      while (this.inForeign) this.foreign.pop();
    }
    const foreign = this.inForeign;
    if (!isInlineElement(tag)) this.text.space();

    if (!foreign) {
      switch (tag) {
        case 'base':
          this.onBase(token);
          break;
        case 'meta':
          this.onMeta(token);
          break;
        case 'link':
          this.onLink(token);
          break;
        case 'form':
          this.onForm(token);
          break;
      }
    }
    for (const attr of token.attrs) this.onAttribute(tag, attr.name, attr.value, foreign);

    if (foreign) {
      if (!token.selfClosing && (tag === 'foreignobject' || tag === 'desc' || tag === 'title') && this.foreign.at(-1) === 'svg') {
        this.foreign.push('html');
      } else if (!token.selfClosing && (tag === 'svg' || tag === 'math')) {
        this.foreign.push(tag);
      }
      if (tag === 'style' && !token.selfClosing) this.rawText = 'style'; // collected, but the tokenizer stays in markup mode
    } else if (tag === 'svg' || tag === 'math') {
      if (!token.selfClosing) this.foreign.push(tag);
    } else {
      const state = RAW_TEXT_STATE[tag];
      if (state !== undefined && this.tokenizer) {
        this.tokenizer.state = state as typeof this.tokenizer.state;
        this.rawText = tag;
        if (tag === 'title' && this.titleParts === null) {
          this.titleParts = [];
          this.collectingTitle = true;
        }
      }
      if (tag === 'noscript' || tag === 'template') this.hiddenDepth++;
    }
    if (this.tokenizer) this.tokenizer.inForeignNode = this.inForeign;
  }

  onEndTag(token: Token.TagToken): void {
    const tag = token.tagName;
    if (!isInlineElement(tag)) this.text.space();
    if (this.rawText !== null && tag === this.rawText) {
      if (tag === 'style') this.flushCss();
      if (tag === 'title') this.collectingTitle = false;
      this.rawText = null;
    }
    const top = this.foreign.at(-1);
    if (top !== undefined && (tag === top || (top === 'html' && (tag === 'foreignobject' || tag === 'desc' || tag === 'title')))) {
      this.foreign.pop();
    } else if ((tag === 'noscript' || tag === 'template') && this.hiddenDepth > 0) {
      this.hiddenDepth--;
    }
    if (this.tokenizer) this.tokenizer.inForeignNode = this.inForeign;
  }

  onCharacter(token: Token.CharacterToken): void {
    this.onChars(token.chars, false);
  }

  onWhitespaceCharacter(token: Token.CharacterToken): void {
    this.onChars(token.chars, true);
  }

  onNullCharacter(): void {}
  onComment(): void {}
  onDoctype(): void {}

  onEof(): void {
    if (this.rawText === 'style') this.flushCss();
  }

  private onChars(chars: string, whitespace: boolean): void {
    const raw = this.rawText;
    if (raw === 'style') {
      this.cssParts.push(chars);
      return;
    }
    if (raw === 'title') {
      if (this.collectingTitle && this.titleLength < MAX_TITLE_CHARS) {
        this.titleParts!.push(chars);
        this.titleLength += chars.length;
      }
      return;
    }
    // Script, iframe fallback, xmp … hold no visible text; textarea and plaintext do.
    if (raw !== null && raw !== 'textarea' && raw !== 'plaintext') return;
    if (this.hiddenDepth > 0) return;
    if (whitespace) this.text.space();
    else this.text.add(chars);
  }

  /** URLs in a `<style>` block, with contexts `style/url()`, `style/@import`, `style/image-set()`. */
  private flushCss(): void {
    const css = this.cssParts.join('');
    this.cssParts = [];
    if (this.base === null || css === '') return;
    const base = this.base;
    scanCssUrls(css, (raw, kind) => {
      this.links.addRaw(raw, base, 'E', CSS_CONTEXT[kind].replace('css/', 'style/'));
      return !this.links.truncated;
    });
  }

  private onAttribute(tag: string, name: string, value: string, foreign: boolean): void {
    const rule = attrRule(tag, name, foreign);
    if (rule === null || this.base === null) return;
    const context = `${tag}/@${name}`;
    switch (rule.kind) {
      case 'url':
        this.links.addRaw(value, this.base, rule.hop, context);
        break;
      case 'srcset':
        for (const u of srcsetUrls(value)) this.links.addRaw(u, this.base, rule.hop, context);
        break;
      case 'css': {
        const base = this.base;
        scanCssUrls(value, (raw) => {
          this.links.addRaw(raw, base, 'E', context);
          return !this.links.truncated;
        });
        break;
      }
      case 'script':
        for (const u of scriptStringUrls(value.slice(0, MAX_SCRIPT_ATTR_CHARS))) this.links.addRaw(u, this.base, 'X', context);
        break;
    }
  }

  private onBase(token: Token.TagToken): void {
    const href = attr(token, 'href');
    if (href === null || this.baseHref !== null || this.docUrl === null) return;
    const url = URL.parse(href.trim(), this.docUrl);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return;
    url.hash = '';
    this.base = url;
    this.baseHref = url.href;
  }

  private onMeta(token: Token.TagToken): void {
    const content = attr(token, 'content');
    if (content === null) return;
    const equiv = attr(token, 'http-equiv')?.trim().toLowerCase();
    if (equiv === 'refresh') {
      const target = refreshTarget(content);
      if (target !== null && this.base !== null && this.metaRefresh === undefined) {
        const before = this.links.outlinks.length;
        this.links.addRaw(target, this.base, 'R', 'meta/@content');
        const added = this.links.outlinks[before];
        if (added) this.metaRefresh = added.url;
        else {
          const u = URL.parse(target, this.base);
          if (u && (u.protocol === 'http:' || u.protocol === 'https:')) {
            u.hash = '';
            this.metaRefresh = u.href;
          }
        }
      }
      return;
    }
    const name = attr(token, 'name')?.trim().toLowerCase();
    if (name === 'robots' || (name !== undefined && name === this.agent)) {
      // Commas are the standard separator; some pages use spaces, so accept both.
      const d = parseRobotsDirectives(content.trim().replace(/\s+/g, ','));
      this.robots.nofollow ||= d.nofollow;
      this.robots.noindex ||= d.noindex;
    }
  }

  private onLink(token: Token.TagToken): void {
    const href = attr(token, 'href');
    if (href === null || this.base === null) return;
    const hop = linkRelHop(attr(token, 'rel') ?? '');
    if (hop !== null) this.links.addRaw(href, this.base, hop, 'link/@href');
  }

  /**
   * A form's action is followed as a plain link, and only for GET forms (Heritrix's default,
   * extract-only-form-gets): a POST endpoint fetched with GET is an error page at best.
   */
  private onForm(token: Token.TagToken): void {
    const action = attr(token, 'action');
    const method = (attr(token, 'method') ?? 'get').trim().toLowerCase();
    if (action === null || this.base === null || (method !== 'get' && method !== '')) return;
    this.links.addRaw(action, this.base, 'L', 'form/@action');
  }
}

function attr(token: Token.TagToken, name: string): string | null {
  for (const a of token.attrs) if (a.name === name) return a.value;
  return null;
}
