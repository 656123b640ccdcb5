/**
 * parse5's Tokenizer, reading runs of ordinary characters in one step instead of one state-machine
 * round per character.
 *
 * parse5 consumes the input one code point at a time: for every character of text or of an
 * attribute value it goes round its parsing loop (advance the preprocessor, check for the end of
 * the chunk, switch on the state, switch on the character, extend the pending run). On the
 * Python docs that loop was ~60% of the extraction worker's CPU (now the crawl thread's, issue
 * 20). In the states that dominate a page (text,
 * the raw text of script/style/title/textarea, quoted attribute values) every character but a
 * handful only extends the pending run; this subclass lets parse5 handle the character it was
 * given, then moves the input position past the ordinary characters that follow and extends the
 * run over them at once, as parse5's own per-character path would have.
 *
 * "Ordinary" is deliberately narrow, so that nothing parse5 tracks per character is skipped: no
 * character the state acts on (`<`, `&`, a quote, NUL), no CR (the preprocessor reads it as LF and
 * drops an LF after it), no surrogate (its pairing and gap bookkeeping). A run does not start at
 * an LF that the preprocessor made of a CR. LFs inside a run are not counted as lines: the line
 * number serves only source locations and parse errors, which extraction turns off, and this
 * tokenizer refuses `sourceCodeLocationInfo`.
 *
 * Plain tags are read whole (wholeTag): on the Python docs three quarters of the input is tags and
 * their attributes, which parse5 reads in some 13 rounds of its loop per tag (tag open, name, each
 * attribute's name, `=`, quotes, value, the space after it); a tag that is plain and wholly in the
 * input written so far is read in one step. A handler that takes PlainTags (PlainTagHandler) gets
 * it without a token: name, tag id, self-closing flag and attribute spans, strings made only of
 * what it asks for; the text after it up to the next tag comes as one token, and that tag is read
 * in the same step. Other handlers, and the few tags that need parse5's token (raw-text elements'
 * start tags, repeated attribute names), get the token built with parse5's own token calls.
 *
 * One difference from parse5's tokens, on purpose: parse5 cuts text into a character token per
 * word and a whitespace token per gap between words (its tree builder needs whitespace apart);
 * here a run of text goes on over whitespace, and a whitespace token that a run extends over other
 * characters becomes a character token. On the Python docs that is ~2.5 million tokens fewer per
 * pass (each a handler call, a token object and a string). A handler that collapses whitespace
 * itself (TextCollector) reads the same text either way. Apart from that the tokens are parse5's:
 * test/extract/run-tokenizer.test.ts compares them with the plain Tokenizer's, adjacent character
 * and whitespace tokens joined, on the HTML fixtures and on generated input fed in random chunks.
 * It relies on parse5's protected members (`_stateData` …, `runEnd`, `currentCharacterToken`,
 * `_emitCurrentCharacterToken`, `preprocessor.pos`): parse5 is pinned in package-lock.json, and that test is what says an
 * upgrade still fits.
 */
import { Token, Tokenizer, TokenizerMode, html as htmlTags } from 'parse5';
import type { TokenHandler, TokenizerOptions } from 'parse5';

/**
 * Elements whose content the HTML parser reads as raw text, and the tokenizer state it switches
 * to after their start tag (the handler switches it: the tokenizer has no tree). Their start tags
 * always reach the handler as parse5 tokens (onStartTag), never as a PlainTag.
 */
export const RAW_TEXT_STATE: ReadonlyMap<string, Tokenizer['state']> = new Map<string, Tokenizer['state']>([
  ['title', TokenizerMode.RCDATA],
  ['textarea', TokenizerMode.RCDATA],
  ['style', TokenizerMode.RAWTEXT],
  ['xmp', TokenizerMode.RAWTEXT],
  ['iframe', TokenizerMode.RAWTEXT],
  ['noembed', TokenizerMode.RAWTEXT],
  ['noframes', TokenizerMode.RAWTEXT],
  ['script', TokenizerMode.SCRIPT_DATA],
  ['plaintext', TokenizerMode.PLAINTEXT],
]);

/** RAW_TEXT_STATE's names by parse5's tag id (every one of them has an id). */
const RAW_TEXT_BY_ID = new Uint8Array(256);
for (const tag of RAW_TEXT_STATE.keys()) RAW_TEXT_BY_ID[htmlTags.getTagID(tag)] = 1;

/**
 * A start or end tag as a handler reads it, from a parse5 token (TokenTag) or straight from the
 * input (PlainTag): attribute names and values by index, so that a tag from the input makes a
 * string only of what is asked for.
 */
export interface TagView {
  readonly tagName: string;
  /** parse5's id for the name (html.TAG_ID.UNKNOWN when it has none). */
  readonly tagID: number;
  readonly selfClosing: boolean;
  readonly attrCount: number;
  attrName(i: number): string;
  /** The length of attribute i's name, and its first code unit: read without making the name a string. */
  attrNameLength(i: number): number;
  attrNameFirst(i: number): number;
  attrValue(i: number): string;
}

/** A parse5 tag token as a TagView; one reused per handler (`of` points it at the token). */
export class TokenTag implements TagView {
  private token: Token.TagToken | null = null;

  of(token: Token.TagToken): this {
    this.token = token;
    return this;
  }

  get tagName(): string {
    return this.token!.tagName;
  }

  get tagID(): number {
    return this.token!.tagID;
  }

  get selfClosing(): boolean {
    return this.token!.selfClosing;
  }

  get attrCount(): number {
    return this.token!.attrs.length;
  }

  attrName(i: number): string {
    return this.token!.attrs[i]!.name;
  }

  attrNameLength(i: number): number {
    return this.token!.attrs[i]!.name.length;
  }

  attrNameFirst(i: number): number {
    return this.token!.attrs[i]!.name.charCodeAt(0);
  }

  attrValue(i: number): string {
    return this.token!.attrs[i]!.value;
  }
}

/**
 * A whole plain tag read by wholeTag, handed to the handler without a parse5 token: its attributes
 * are spans of the input, made strings only when the handler asks (most attributes, `class`, `id`,
 * `title` …, hold nothing a crawler reads). Valid only during the handler's call: the tokenizer
 * reuses it for the next tag and may drop the input it points into.
 */
export class PlainTag implements TagView {
  tagName = '';
  tagID: number = htmlTags.TAG_ID.UNKNOWN;
  isEnd = false;
  selfClosing = false;
  attrCount = 0;
  /** The input the spans point into. */
  html = '';
  /** Per attribute: name start, name end, value start, value end (equal for no value). */
  readonly spans: number[] = [];

  attrName(i: number): string {
    return cachedName(this.html, this.spans[4 * i]!, this.spans[4 * i + 1]!);
  }

  attrNameLength(i: number): number {
    return this.spans[4 * i + 1]! - this.spans[4 * i]!;
  }

  attrNameFirst(i: number): number {
    return this.html.charCodeAt(this.spans[4 * i]!);
  }

  attrValue(i: number): string {
    return ownSlice(this.html, this.spans[4 * i + 2]!, this.spans[4 * i + 3]!);
  }
}

/** A TokenHandler that also takes whole plain tags as PlainTags (instead of onStartTag/onEndTag). */
export interface PlainTagHandler extends TokenHandler {
  onPlainTag(tag: PlainTag): void;
}

function isPlainTagHandler(handler: TokenHandler): handler is PlainTagHandler {
  return typeof (handler as Partial<PlainTagHandler>).onPlainTag === 'function';
}

// Per ASCII code unit, the reasons a run stops there (bit flags); above ASCII only surrogates stop.
const STOP_ALWAYS = 1; // NUL, and CR (read as LF, or dropped before an LF): parse5 takes them one at a time
const STOP_LT = 2;
const STOP_AMP = 4;
const STOP_DQUOTE = 8;
const STOP_SQUOTE = 16;
const STOP_NAME = 32; // what ends a tag or attribute name, or changes it (ASCII upper case is lowered)
const STOP_UNQUOTED = 64; // what ends an unquoted attribute value, or is a parse error in one (whitespace, >, =, `)

const STOPS = new Uint8Array(128);
STOPS[0x00] = STOP_ALWAYS;
STOPS[0x0d] = STOP_ALWAYS;
STOPS[0x3c] = STOP_LT;
STOPS[0x26] = STOP_AMP;
STOPS[0x22] = STOP_DQUOTE;
STOPS[0x27] = STOP_SQUOTE;
for (const c of [0x00, 0x0d, 0x20, 0x0a, 0x09, 0x0c, 0x2f, 0x3e, 0x3d, 0x22, 0x27, 0x3c]) STOPS[c]! |= STOP_NAME;
for (let c = 0x41; c <= 0x5a; c++) STOPS[c]! |= STOP_NAME;
for (const c of [0x20, 0x0a, 0x09, 0x0c, 0x3e, 0x3d, 0x60]) STOPS[c]! |= STOP_UNQUOTED;

/** What ends a run in each state. */
const DATA_STOPS = STOP_ALWAYS | STOP_LT | STOP_AMP; // data and RCDATA
const RAW_STOPS = STOP_ALWAYS | STOP_LT; // RAWTEXT and script data
const PLAIN_STOPS = STOP_ALWAYS; // PLAINTEXT
const DQUOTED_STOPS = STOP_ALWAYS | STOP_AMP | STOP_DQUOTE;
const SQUOTED_STOPS = STOP_ALWAYS | STOP_AMP | STOP_SQUOTE;
const NAME_STOPS = STOP_ALWAYS | STOP_NAME;
const UNQUOTED_STOPS = STOP_ALWAYS | STOP_LT | STOP_AMP | STOP_DQUOTE | STOP_SQUOTE | STOP_UNQUOTED;

/** The index after the run that starts at `from`: no character with a stop bit in `mask`, no surrogate. */
function runEnd(html: string, from: number, mask: number): number {
  const n = html.length;
  let j = from;
  while (j < n) {
    const c = html.charCodeAt(j);
    if (c < 0x80 ? (STOPS[c]! & mask) !== 0 : c >= 0xd800 && c <= 0xdfff) break;
    j++;
  }
  return j;
}

/**
 * Whether parse5 handled `cp` by extending the run over it, so the run may go on: a BMP character
 * that is not a surrogate, not EOF, and stops nothing in this state.
 */
function isOrdinary(cp: number, mask: number): boolean {
  if (cp < 0) return false;
  if (cp < 0x80) return (STOPS[cp]! & mask) === 0;
  return cp < 0xd800 || (cp > 0xdfff && cp <= 0xffff);
}

/**
 * `name`, whose last character is the input's at `pos`, extended to `end`. Mostly the name began
 * at `pos`, and it becomes one slice of the input. As in parse5's own runs, a slice of 13
 * characters or more is copied (V8 would let it share, and keep alive, the whole input chunk).
 */
function joinName(name: string, html: string, pos: number, end: number): string {
  const tail = html.slice(name.length === 1 ? pos : pos + 1, end);
  const own = tail.length < 13 ? tail : ` ${tail}`.slice(1);
  return name.length === 1 ? own : name + own;
}

/**
 * `html.slice(from, to)` as a string of its own: V8 would let a slice of 13 characters or more share,
 * and keep alive, the whole input chunk (parse5 copies its runs the same way).
 */
function ownSlice(html: string, from: number, to: number): string {
  const s = html.slice(from, to);
  return s.length < 13 ? s : ` ${s}`.slice(1);
}

/**
 * Tag and attribute names read lately, by length and first and last character (cachedName), shared by the tokenizers of a thread: a small page then starts with the names the last
 * one read. Short strings of their own (V8 copies a slice under 13 characters), so no page's input
 * is kept alive by them.
 */
const NAME_SLOTS = 256;
const NAMES: (string | undefined)[] = new Array<string | undefined>(NAME_SLOTS).fill(undefined);
/** parse5's tag id of the name in the same slot, once asked for (-1 before). */
const NAME_TAG_IDS = new Int16Array(NAME_SLOTS).fill(-1);
/** The slot cachedName last returned a name from, or -1 (a long name, not cached). */
let lastSlot = -1;

/**
 * The tag or attribute name at `from`..`to`: the same string as last time when this name was read
 * lately, else a new slice. A page repeats a few dozen names (`a`, `span`, `class`, `href`)
 * thousands of times; a string read again keeps its hash, which parse5's tag-id lookup and the
 * handler's rule lookups need, and no new string is made. A slot holds one name; two names that
 * share a slot only make each other miss.
 */
function cachedName(html: string, from: number, to: number): string {
  const length = to - from;
  if (length >= 13) {
    lastSlot = -1;
    return ownSlice(html, from, to);
  }
  const slot = (length * 37 + html.charCodeAt(from) * 7 + html.charCodeAt(to - 1)) & (NAME_SLOTS - 1);
  lastSlot = slot;
  const seen = NAMES[slot];
  if (seen !== undefined && seen.length === length) {
    // Compared in place: names are short, and a builtin call (startsWith) cost more than the loop.
    let k = 0;
    while (k < length && seen.charCodeAt(k) === html.charCodeAt(from + k)) k++;
    if (k === length) return seen;
  }
  const name = html.slice(from, to);
  NAMES[slot] = name;
  NAME_TAG_IDS[slot] = -1;
  return name;
}

/** parse5's id for the tag name cachedName just returned (kept in its slot: no Map lookup again). */
function lastTagID(name: string): number {
  const slot = lastSlot;
  if (slot < 0) return htmlTags.getTagID(name);
  const id = NAME_TAG_IDS[slot]!;
  return id >= 0 ? id : (NAME_TAG_IDS[slot] = htmlTags.getTagID(name));
}

/** Whether two of the first `count` attributes (spans: four entries each) have the same name. */
function hasDuplicateName(html: string, spans: number[], count: number): boolean {
  for (let a = 1; a < count; a++) {
    const aFrom = spans[4 * a]!;
    const length = spans[4 * a + 1]! - aFrom;
    for (let b = 0; b < a; b++) {
      const bFrom = spans[4 * b]!;
      if (spans[4 * b + 1]! - bFrom !== length) continue;
      let k = 0;
      while (k < length && html.charCodeAt(aFrom + k) === html.charCodeAt(bFrom + k)) k++;
      if (k === length) return true;
    }
  }
  return false;
}

function isHtmlSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c;
}

export class RunTokenizer extends Tokenizer {
  /** wholeTag's tag, its attribute spans reused from tag to tag. */
  private readonly plain = new PlainTag();
  /** The handler, when it takes whole plain tags without a token. */
  private readonly plainHandler: PlainTagHandler | null;
  /** parse5's tag-open state. */
  private tagOpen: Tokenizer['state'] = TokenizerMode.DATA;

  constructor(options: TokenizerOptions, handler: TokenHandler) {
    if (options.sourceCodeLocationInfo) throw new Error('RunTokenizer does not track source locations');
    super(options, handler);
    this.plainHandler = isPlainTagHandler(handler) ? handler : null;
  }

  protected override _stateData(cp: number): void {
    const state = this.state;
    super._stateData(cp);
    if (this.state === state) this.skipText(cp, DATA_STOPS);
    else if (cp === 0x3c) {
      // parse5 is in its tag-open state (not among the states it exports: kept from here).
      this.tagOpen = this.state;
      this.wholeTag();
    }
  }

  protected override _stateRcdata(cp: number): void {
    const state = this.state;
    super._stateRcdata(cp);
    if (this.state === state) this.skipText(cp, DATA_STOPS);
  }

  protected override _stateRawtext(cp: number): void {
    const state = this.state;
    super._stateRawtext(cp);
    if (this.state === state) this.skipText(cp, RAW_STOPS);
  }

  protected override _stateScriptData(cp: number): void {
    const state = this.state;
    super._stateScriptData(cp);
    if (this.state === state) this.skipText(cp, RAW_STOPS);
  }

  protected override _statePlaintext(cp: number): void {
    super._statePlaintext(cp);
    this.skipText(cp, PLAIN_STOPS);
  }

  protected override _stateAttributeValueDoubleQuoted(cp: number): void {
    const state = this.state;
    super._stateAttributeValueDoubleQuoted(cp);
    if (this.state === state) this.skipValue(cp, DQUOTED_STOPS);
  }

  protected override _stateAttributeValueSingleQuoted(cp: number): void {
    const state = this.state;
    super._stateAttributeValueSingleQuoted(cp);
    if (this.state === state) this.skipValue(cp, SQUOTED_STOPS);
  }

  protected override _stateTagName(cp: number): void {
    const state = this.state;
    super._stateTagName(cp);
    if (this.state !== state) return;
    const end = this.nameEnd(cp);
    if (end < 0) return;
    // The name as one flat slice, not a string grown a character at a time: parse5 looks every tag
    // name up in a Map (getTagID), which hashes it.
    const token = this.currentToken as Token.TagToken;
    token.tagName = joinName(token.tagName, this.preprocessor.html, this.preprocessor.pos, end);
    this.preprocessor.pos = end - 1;
  }

  protected override _stateAttributeName(cp: number): void {
    const state = this.state;
    super._stateAttributeName(cp);
    if (this.state !== state) return;
    const end = this.nameEnd(cp);
    if (end < 0) return;
    this.currentAttr.name = joinName(this.currentAttr.name, this.preprocessor.html, this.preprocessor.pos, end);
    this.preprocessor.pos = end - 1;
  }

  /**
   * Where the run of name characters after `cp` ends, when parse5 appended `cp` itself to a tag or
   * attribute name and more of them follow; -1 otherwise.
   */
  private nameEnd(cp: number): number {
    if (cp < 0 || cp >= 0x80 || (STOPS[cp]! & NAME_STOPS) !== 0) return -1;
    const pp = this.preprocessor;
    const from = pp.pos + 1;
    const end = runEnd(pp.html, from, NAME_STOPS);
    return end > from ? end : -1;
  }

  /**
   * After parse5 emitted `cp` as text (its run now ends just after it): extend the run over the
   * characters that follow, whitespace included, up to the next one this state acts on.
   */
  private skipText(cp: number, mask: number): void {
    const pp = this.preprocessor;
    if (!isOrdinary(cp, mask) || (cp === 0x0a && pp.html.charCodeAt(pp.pos) !== 0x0a)) return;
    const from = pp.pos + 1;
    const end = runEnd(pp.html, from, mask);
    if (end === from) return;
    const token = this.currentCharacterToken!;
    if (token.type === Token.TokenType.WHITESPACE_CHARACTER) {
      // Whitespace only (the gap between two tags) stays a whitespace token.
      for (let i = from; i < end; i++) {
        if (!isHtmlSpace(pp.html.charCodeAt(i))) {
          token.type = Token.TokenType.CHARACTER;
          break;
        }
      }
    }
    this.skipTo(end);
  }

  /** The same inside a quoted attribute value. */
  private skipValue(cp: number, mask: number): void {
    const pp = this.preprocessor;
    if (!isOrdinary(cp, mask) || (cp === 0x0a && pp.html.charCodeAt(pp.pos) !== 0x0a)) return;
    const from = pp.pos + 1;
    const end = runEnd(pp.html, from, mask);
    if (end > from) this.skipTo(end);
  }

  /**
   * After parse5 read the `<` of a tag in text: read the whole tag at once, when it is a plain one
   * that lies in the input already: `</name>`, or `<name>` with attributes that have a value
   * (quoted, or unquoted and not empty) holding no character reference, or no value, separated by
   * HTML whitespace, and an optional `/` before the `>`. On the Python docs parse5's states take
   * ~13 rounds of its loop per such tag. Anything else (upper case, a reference, a parse error, a
   * CR, a tag cut by the end of the chunk written so far) is left to parse5 from the `<` on:
   * nothing is changed until the whole tag has been read.
   *
   * A handler that takes PlainTags gets the tag as spans of the input (no token, no attribute
   * objects, no string it does not ask for), unless it is a raw-text element's start tag or repeats
   * an attribute name; those, and every tag for other handlers, become the token parse5's states
   * would build, made with its own calls (`_createStartTagToken`, `_createAttr`, `_leaveAttrName`
   * with its duplicate-attribute rule, `emitCurrentTagToken`).
   */
  private wholeTag(): void {
    while (this.readTag());
  }

  /** wholeTag's one tag; true when it is followed by another `<` read as parse5's data state reads it. */
  private readTag(): boolean {
    const pp = this.preprocessor;
    const html = pp.html;
    const n = html.length;
    let i = pp.pos + 1;
    if (i >= n) return false;
    let c = html.charCodeAt(i);
    const isEnd = c === 0x2f;
    if (isEnd) {
      if (++i >= n) return false;
      c = html.charCodeAt(i);
    }
    // A name starts with a lower-case ASCII letter (parse5 lowers an upper-case one: left to it).
    if (c < 0x61 || c > 0x7a) return false;
    let j = runEnd(html, i + 1, NAME_STOPS);
    if (j >= n) return false;
    const nameFrom = i;
    const nameTo = j;
    c = html.charCodeAt(j);
    const plain = this.plain;
    const spans = plain.spans;
    // Attributes as spans, four entries each; `count` of them in use (truncating the array each tag costs a runtime call).
    let count = 0;
    let selfClosing = false;
    if (isEnd) {
      if (c !== 0x3e) return false;
    } else {
      for (;;) {
        const spaced = isHtmlSpace(c);
        while (isHtmlSpace(c)) {
          if (++j >= n) return false;
          c = html.charCodeAt(j);
        }
        if (c === 0x3e) break;
        if (c === 0x2f) {
          if (++j >= n || html.charCodeAt(j) !== 0x3e) return false;
          selfClosing = true;
          break;
        }
        // An attribute must follow whitespace; anything else after a name or a value is left to parse5.
        if (!spaced) return false;
        const nameEnd = runEnd(html, j, NAME_STOPS);
        if (nameEnd === j || nameEnd >= n) return false;
        c = html.charCodeAt(nameEnd);
        const at = 4 * count;
        if (c !== 0x3d) {
          if (!isHtmlSpace(c) && c !== 0x3e && c !== 0x2f) return false;
          spans[at] = j;
          spans[at + 1] = nameEnd;
          spans[at + 2] = nameEnd;
          spans[at + 3] = nameEnd;
          count++;
          j = nameEnd;
          continue;
        }
        const quote = nameEnd + 1 < n ? html.charCodeAt(nameEnd + 1) : -1;
        if (quote === 0x22 || quote === 0x27) {
          const valueEnd = runEnd(html, nameEnd + 2, quote === 0x22 ? DQUOTED_STOPS : SQUOTED_STOPS);
          if (valueEnd >= n - 1 || html.charCodeAt(valueEnd) !== quote) return false;
          spans[at] = j;
          spans[at + 1] = nameEnd;
          spans[at + 2] = nameEnd + 2;
          spans[at + 3] = valueEnd;
          j = valueEnd + 1;
        } else {
          // Unquoted (`href=/p/1.html`): up to whitespace or `>`; empty, or ended by anything else, is left to parse5.
          const valueEnd = runEnd(html, nameEnd + 1, UNQUOTED_STOPS);
          if (valueEnd === nameEnd + 1 || valueEnd >= n) return false;
          spans[at] = j;
          spans[at + 1] = nameEnd;
          spans[at + 2] = nameEnd + 1;
          spans[at + 3] = valueEnd;
          j = valueEnd;
        }
        count++;
        c = html.charCodeAt(j);
      }
    }
    // The whole tag is read: from here on, what parse5 does on reading its `>`.
    const name = cachedName(html, nameFrom, nameTo);
    const tagID = lastTagID(name);
    pp.pos = j;
    this.state = TokenizerMode.DATA;
    const handler = this.plainHandler;
    const duplicate = count > 1 && hasDuplicateName(html, spans, count);
    if (handler !== null && !duplicate && (isEnd || RAW_TEXT_BY_ID[tagID] !== 1)) {
      // emitCurrentTagToken's steps without the token: the text before the tag first.
      this._emitCurrentCharacterToken(null);
      if (!isEnd) this.lastStartTagName = name;
      plain.tagName = name;
      plain.tagID = tagID;
      plain.isEnd = isEnd;
      plain.selfClosing = selfClosing;
      plain.attrCount = count;
      plain.html = html;
      handler.onPlainTag(plain);
      plain.html = '';
      pp.dropParsedChunk();
      return this.state === TokenizerMode.DATA && this.textToTag(handler);
    }
    this.emitTagToken(html, name, isEnd, selfClosing, count, duplicate);
    return false;
  }

  /**
   * readTag's tag, read whole, as the token parse5's states would have built for it (every tag
   * when the handler takes no PlainTags; a raw-text element's start tag or a repeated attribute
   * name when it does), made with parse5's own token calls; its attribute spans are `plain`'s.
   */
  private emitTagToken(html: string, name: string, isEnd: boolean, selfClosing: boolean, count: number, duplicate: boolean): void {
    const plain = this.plain;
    if (isEnd) this._createEndTagToken();
    else this._createStartTagToken();
    const token = this.currentToken as Token.TagToken;
    token.tagName = name;
    if (selfClosing) token.selfClosing = true;
    plain.html = html;
    if (count <= 8 && !duplicate) {
      // A few distinct names: parse5 would keep all of them, in order, as these same objects
      // (`_createAttr`'s shape); its own calls, with its duplicate rule, take the rest.
      for (let k = 0; k < count; k++) token.attrs.push({ name: plain.attrName(k), value: plain.attrValue(k) });
    } else {
      for (let k = 0; k < count; k++) {
        this._createAttr('');
        this.currentAttr.name = plain.attrName(k);
        this._leaveAttrName();
        this.currentAttr.value = plain.attrValue(k);
      }
    }
    plain.html = '';
    this.emitCurrentTagToken();
  }

  /**
   * After a PlainTag, in the data state: the text up to the next `<`, when it holds nothing parse5
   * acts on (no `&`, CR, NUL or surrogate) and the `<` is in the input already, goes to the handler
   * as one token without parse5's data state (its loop round, `_emitCodePoint`, the run it then
   * flushes): the token it would have got, whitespace only or not. Then the `<` is read as the data
   * state reads it (tag open), and true returned: wholeTag reads the next tag in the same round of
   * parse5's loop. Anything else is left to parse5, and false returned.
   */
  private textToTag(handler: PlainTagHandler): boolean {
    const pp = this.preprocessor;
    const html = pp.html;
    const from = pp.pos + 1;
    const end = runEnd(html, from, DATA_STOPS);
    if (end >= html.length || html.charCodeAt(end) !== 0x3c) return false;
    pp.pos = end;
    this.state = this.tagOpen;
    if (end === from) return true;
    let i = from;
    while (i < end && isHtmlSpace(html.charCodeAt(i))) i++;
    const chars = ownSlice(html, from, end);
    if (i < end) handler.onCharacter({ type: Token.TokenType.CHARACTER, chars, location: null });
    else handler.onWhitespaceCharacter({ type: Token.TokenType.WHITESPACE_CHARACTER, chars, location: null });
    return this.state === this.tagOpen;
  }

  private skipTo(end: number): void {
    this.preprocessor.pos = end - 1;
    this.runEnd = end;
  }
}
