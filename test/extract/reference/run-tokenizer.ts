/**
 * parse5's Tokenizer, reading runs of ordinary characters in one step instead of one state-machine
 * round per character.
 *
 * parse5 consumes the input one code point at a time: for every character of text or of an
 * attribute value it goes round its parsing loop (advance the preprocessor, check for the end of
 * the chunk, switch on the state, switch on the character, extend the pending run). On the
 * Python docs that loop is ~60% of the extraction worker. In the states that dominate a page (text,
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
 * One difference from parse5's tokens, on purpose: parse5 cuts text into a character token per
 * word and a whitespace token per gap between words (its tree builder needs whitespace apart);
 * here a run of text goes on over whitespace, and a whitespace token that a run extends over other
 * characters becomes a character token. On the Python docs that is ~2.5 million tokens fewer per
 * pass (each a handler call, a token object and a string). A handler that collapses whitespace
 * itself (TextCollector) reads the same text either way. Apart from that the tokens are parse5's:
 * test/extract/run-tokenizer.test.ts compares them with the plain Tokenizer's, adjacent character
 * and whitespace tokens joined, on the HTML fixtures and on generated input fed in random chunks.
 * It relies on parse5's protected members (`_stateData` …, `runEnd`, `currentCharacterToken`,
 * `preprocessor.pos`): parse5 is pinned in package-lock.json, and that test is what says an
 * upgrade still fits.
 */
import { Token, Tokenizer } from 'parse5';
import type { TokenHandler, TokenizerOptions } from 'parse5';

// Per ASCII code unit, the reasons a run stops there (bit flags); above ASCII only surrogates stop.
const STOP_ALWAYS = 1; // NUL, and CR (read as LF, or dropped before an LF): parse5 takes them one at a time
const STOP_LT = 2;
const STOP_AMP = 4;
const STOP_DQUOTE = 8;
const STOP_SQUOTE = 16;
const STOP_NAME = 32; // what ends a tag or attribute name, or changes it (ASCII upper case is lowered)

const STOPS = new Uint8Array(128);
STOPS[0x00] = STOP_ALWAYS;
STOPS[0x0d] = STOP_ALWAYS;
STOPS[0x3c] = STOP_LT;
STOPS[0x26] = STOP_AMP;
STOPS[0x22] = STOP_DQUOTE;
STOPS[0x27] = STOP_SQUOTE;
for (const c of [0x00, 0x0d, 0x20, 0x0a, 0x09, 0x0c, 0x2f, 0x3e, 0x3d, 0x22, 0x27, 0x3c]) STOPS[c]! |= STOP_NAME;
for (let c = 0x41; c <= 0x5a; c++) STOPS[c]! |= STOP_NAME;

/** What ends a run in each state. */
const DATA_STOPS = STOP_ALWAYS | STOP_LT | STOP_AMP; // data and RCDATA
const RAW_STOPS = STOP_ALWAYS | STOP_LT; // RAWTEXT and script data
const PLAIN_STOPS = STOP_ALWAYS; // PLAINTEXT
const DQUOTED_STOPS = STOP_ALWAYS | STOP_AMP | STOP_DQUOTE;
const SQUOTED_STOPS = STOP_ALWAYS | STOP_AMP | STOP_SQUOTE;
const NAME_STOPS = STOP_ALWAYS | STOP_NAME;

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

function isHtmlSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c;
}

export class RunTokenizer extends Tokenizer {
  constructor(options: TokenizerOptions, handler: TokenHandler) {
    if (options.sourceCodeLocationInfo) throw new Error('RunTokenizer does not track source locations');
    super(options, handler);
  }

  protected override _stateData(cp: number): void {
    const state = this.state;
    super._stateData(cp);
    if (this.state === state) this.skipText(cp, DATA_STOPS);
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

  private skipTo(end: number): void {
    this.preprocessor.pos = end - 1;
    this.runEnd = end;
  }
}
