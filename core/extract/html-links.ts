/**
 * Outlinks, title, visible text and page-level directives from an HTML document.
 *
 * Built on parse5's Tokenizer (exported by parse5 8; run-tokenizer.ts reads runs of plain text, and plain tags, in
 * one step), not on its tree builder: a crawler needs attributes and text, not a DOM. Tokenizing is a flat loop over the input, so a page nested
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
import { html } from 'parse5';
import type { Token, Tokenizer } from 'parse5';
import { RAW_TEXT_STATE, RunTokenizer, TokenTag } from './run-tokenizer.ts';
import type { PlainTag, PlainTagHandler, TagView } from './run-tokenizer.ts';
import { OutlinkList } from './outlink.ts';
import type { Outlink } from './outlink.ts';
import { sniffHtmlCharset } from './html-charset.ts';
import { scanCssUrls, CSS_CONTEXT } from './css-links.ts';
import { attrRuleIn, elementAttrRules, linkRelHop, mayHaveAttrRule, scriptStringUrls, srcsetUrls } from './html-link-rules.ts';
import type { AttrRule } from './html-link-rules.ts';
import { refreshTarget } from './refresh-value.ts';
import { parseRobotsDirectives } from '../robots/meta-robots.ts';
import { TextCollector, INLINE_ELEMENTS } from './text-collector.ts';

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

/** Start tags that end foreign (SVG/MathML) content: WHATWG "parsing main inforeign", breakout list. */
const BREAKOUT_TAGS =
  'b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var'.split(' ');
const FONT_BREAKOUT_ATTRS = new Set(['color', 'face', 'size']);

// What a tag name means to the handler, as bit flags looked up once per tag (no flags: an ordinary block element).
const F_INLINE = 1; // phrasing: does not separate words
const F_RAW_TEXT = 2; // in RAW_TEXT_STATE
const F_SPECIAL = 4; // base, meta, link, form: read by their own handlers
const F_BREAKOUT = 8; // closes foreign content
const F_HIDDEN = 16; // noscript, template: text not visible
const F_FOREIGN_ROOT = 32; // svg, math
const F_SVG_HTML = 64; // foreignobject, desc, title: HTML integration points inside <svg>

const TAG_FLAGS = new Map<string, number>();
function flag(tags: Iterable<string>, bit: number): void {
  for (const t of tags) TAG_FLAGS.set(t, (TAG_FLAGS.get(t) ?? 0) | bit);
}
flag(INLINE_ELEMENTS, F_INLINE);
flag(RAW_TEXT_STATE.keys(), F_RAW_TEXT);
flag(['base', 'meta', 'link', 'form'], F_SPECIAL);
flag(BREAKOUT_TAGS, F_BREAKOUT);
flag(['noscript', 'template'], F_HIDDEN);
flag(['svg', 'math'], F_FOREIGN_ROOT);
flag(['foreignobject', 'desc', 'title'], F_SVG_HTML);

/**
 * TAG_FLAGS by parse5's tag id, which the tokenizer has looked up for every tag already (its own
 * Map from name to id): one array read per tag instead of a second Map lookup. Names parse5 has no
 * id for (`foreignobject` is `foreignObject` there, custom elements …) are looked up by name.
 */
const FLAGS_BY_ID = new Uint8Array(256);
for (const [tag, flags] of TAG_FLAGS) {
  const id = html.getTagID(tag);
  if (id !== html.TAG_ID.UNKNOWN) FLAGS_BY_ID[id] = flags;
}

function tagFlags(id: number, tagName: string): number {
  return id !== html.TAG_ID.UNKNOWN && id < FLAGS_BY_ID.length ? FLAGS_BY_ID[id]! : (TAG_FLAGS.get(tagName) ?? 0);
}

/** Entries of the foreign-content stack. */
const SVG = 1;
const MATH = 2;
const HTML_POINT = 3; // an HTML integration point inside <svg>

export function extractHtml(body: Buffer, opts: HtmlOptions): HtmlExtraction {
  const charset = sniffHtmlCharset(body, opts.contentType).encoding;
  const handler = new LinkHandler(opts);
  const tokenizer = new RunTokenizer({ sourceCodeLocationInfo: false }, handler);
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

/**
 * Tags come two ways (run-tokenizer.ts): as PlainTags read straight from the input (onPlainTag,
 * most of them) and as parse5 tokens (onStartTag/onEndTag: raw-text elements' start tags and
 * whatever parse5 reads itself); both go to startTag/endTag through the TagView they share.
 */
class LinkHandler implements PlainTagHandler {
  tokenizer: Tokenizer | null = null;
  /** Null, not absent: parse5's preprocessor then skips its per-character error checks. */
  readonly onParseError = null;
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
  /** Open foreign-content elements (SVG, MATH) and HTML integration points inside them (HTML_POINT). */
  private readonly foreign: number[] = [];
  /** The top of `foreign` is SVG or MATH: kept in step with the stack, read on every tag. */
  private inForeign = false;
  /** parse5's start tag tokens, seen as TagViews. */
  private readonly tokenTag = new TokenTag();

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

  private foreignTop(): number {
    const n = this.foreign.length;
    return n === 0 ? 0 : this.foreign[n - 1]!;
  }

  private pushForeign(kind: number): void {
    this.foreign.push(kind);
    this.syncForeign();
  }

  private popForeign(): void {
    this.foreign.pop();
    this.syncForeign();
  }

  private syncForeign(): void {
    const top = this.foreignTop();
    this.inForeign = top === SVG || top === MATH;
    if (this.tokenizer) this.tokenizer.inForeignNode = this.inForeign;
  }

  onStartTag(token: Token.TagToken): void {
    this.startTag(this.tokenTag.of(token));
  }

  onEndTag(token: Token.TagToken): void {
    this.endTag(token.tagName, tagFlags(token.tagID, token.tagName));
  }

  onPlainTag(tag: PlainTag): void {
    if (tag.isEnd) this.endTag(tag.tagName, tagFlags(tag.tagID, tag.tagName));
    else this.startTag(tag);
  }

  private startTag(token: TagView): void {
    const tag = token.tagName;
    const flags = tagFlags(token.tagID, tag);
    // HTML elements such as <p>, <div> or <img> inside <svg>/<math> close the foreign content, as
    // the HTML parser's "breakout" rule does; an unclosed <svg> must not swallow the page.
    if (this.inForeign && ((flags & F_BREAKOUT) !== 0 || (tag === 'font' && hasFontBreakoutAttr(token)))) {
      while (this.inForeign) this.popForeign();
    }
    const foreign = this.inForeign;
    if ((flags & F_INLINE) === 0) this.text.space();

    if (!foreign && (flags & F_SPECIAL) !== 0) {
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
    const count = token.attrCount;
    if (count > 0 && this.base !== null) {
      // The element's own rules, looked up once an attribute might have one (most have none: `class`).
      let own: ReturnType<typeof elementAttrRules> | null = null; // null: not looked up yet
      for (let i = 0; i < count; i++) {
        if (!mayHaveAttrRule(token.attrNameLength(i), token.attrNameFirst(i))) continue;
        if (own === null) own = elementAttrRules(tag, foreign);
        const name = token.attrName(i);
        const rule = attrRuleIn(own, name);
        if (rule !== null) this.onUrlAttribute(tag, name, token.attrValue(i), rule, this.base);
      }
    }

    if (foreign) {
      if (!token.selfClosing && (flags & F_SVG_HTML) !== 0 && this.foreignTop() === SVG) {
        this.pushForeign(HTML_POINT);
      } else if (!token.selfClosing && (flags & F_FOREIGN_ROOT) !== 0) {
        this.pushForeign(tag === 'svg' ? SVG : MATH);
      }
      if (tag === 'style' && !token.selfClosing) this.rawText = 'style'; // collected, but the tokenizer stays in markup mode
    } else if ((flags & F_FOREIGN_ROOT) !== 0) {
      if (!token.selfClosing) this.pushForeign(tag === 'svg' ? SVG : MATH);
    } else if ((flags & (F_RAW_TEXT | F_HIDDEN)) !== 0) {
      const state = RAW_TEXT_STATE.get(tag);
      if (state !== undefined && this.tokenizer) {
        this.tokenizer.state = state;
        this.rawText = tag;
        if (tag === 'title' && this.titleParts === null) {
          this.titleParts = [];
          this.collectingTitle = true;
        }
      }
      if ((flags & F_HIDDEN) !== 0) this.hiddenDepth++;
    }
  }

  private endTag(tag: string, flags: number): void {
    if ((flags & F_INLINE) === 0) this.text.space();
    if (this.rawText !== null && tag === this.rawText) {
      if (tag === 'style') this.flushCss();
      if (tag === 'title') this.collectingTitle = false;
      this.rawText = null;
    }
    const top = this.foreignTop();
    if (top !== 0 && (top === SVG ? tag === 'svg' : top === MATH ? tag === 'math' : tag === 'html' || (flags & F_SVG_HTML) !== 0)) {
      this.popForeign();
    } else if ((flags & F_HIDDEN) !== 0 && this.hiddenDepth > 0) {
      this.hiddenDepth--;
    }
  }

  onCharacter(token: Token.CharacterToken): void {
    if (this.rawText === null) {
      if (this.hiddenDepth === 0) this.text.add(token.chars);
    } else this.onRawChars(token.chars, false);
  }

  onWhitespaceCharacter(token: Token.CharacterToken): void {
    if (this.rawText === null) {
      if (this.hiddenDepth === 0) this.text.space();
    } else this.onRawChars(token.chars, true);
  }

  onNullCharacter(): void {}
  onComment(): void {}
  onDoctype(): void {}

  onEof(): void {
    if (this.rawText === 'style') this.flushCss();
  }

  /** Characters inside a raw-text element (style, title, script, textarea …). */
  private onRawChars(chars: string, whitespace: boolean): void {
    const raw = this.rawText;
    if (raw === 'style') {
      this.cssParts.push(chars);
      return;
    }
    if (raw === 'title') {
      if (this.collectingTitle && this.titleLength < MAX_TITLE_CHARS) {
        // Cut at the cap itself, not after whichever token crosses it (a token can be a whole title).
        const part = chars.length <= MAX_TITLE_CHARS - this.titleLength ? chars : chars.slice(0, MAX_TITLE_CHARS - this.titleLength);
        this.titleParts!.push(part);
        this.titleLength += part.length;
      }
      return;
    }
    // Script, iframe fallback, xmp … hold no visible text; textarea and plaintext do.
    if (raw !== 'textarea' && raw !== 'plaintext') return;
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

  private onUrlAttribute(tag: string, name: string, value: string, rule: AttrRule, base: URL): void {
    const context = `${tag}/@${name}`;
    switch (rule.kind) {
      case 'url':
        this.links.addRaw(value, base, rule.hop, context);
        break;
      case 'srcset':
        for (const u of srcsetUrls(value)) this.links.addRaw(u, base, rule.hop, context);
        break;
      case 'css':
        scanCssUrls(value, (raw) => {
          this.links.addRaw(raw, base, 'E', context);
          return !this.links.truncated;
        });
        break;
      case 'script':
        for (const u of scriptStringUrls(value.slice(0, MAX_SCRIPT_ATTR_CHARS))) this.links.addRaw(u, base, 'X', context);
        break;
    }
  }

  private onBase(token: TagView): void {
    const href = attr(token, 'href');
    if (href === null || this.baseHref !== null || this.docUrl === null) return;
    const url = URL.parse(href.trim(), this.docUrl);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return;
    url.hash = '';
    this.base = url;
    this.baseHref = url.href;
  }

  private onMeta(token: TagView): void {
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

  private onLink(token: TagView): void {
    const href = attr(token, 'href');
    if (href === null || this.base === null) return;
    const hop = linkRelHop(attr(token, 'rel') ?? '');
    if (hop !== null) this.links.addRaw(href, this.base, hop, 'link/@href');
  }

  /**
   * A form's action is followed as a plain link, and only for GET forms (Heritrix's default,
   * extract-only-form-gets): a POST endpoint fetched with GET is an error page at best.
   */
  private onForm(token: TagView): void {
    const action = attr(token, 'action');
    const method = (attr(token, 'method') ?? 'get').trim().toLowerCase();
    if (action === null || this.base === null || (method !== 'get' && method !== '')) return;
    this.links.addRaw(action, this.base, 'L', 'form/@action');
  }
}

/** The value of the tag's attribute `name`, or null. */
function attr(tag: TagView, name: string): string | null {
  for (let i = 0; i < tag.attrCount; i++) if (tag.attrName(i) === name) return tag.attrValue(i);
  return null;
}

function hasFontBreakoutAttr(tag: TagView): boolean {
  for (let i = 0; i < tag.attrCount; i++) if (FONT_BREAKOUT_ATTRS.has(tag.attrName(i))) return true;
  return false;
}
