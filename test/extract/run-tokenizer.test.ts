import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Token, Tokenizer, TokenizerMode } from 'parse5';
import type { TokenHandler } from 'parse5';
import { RunTokenizer } from '../../core/extract/run-tokenizer.ts';
import type { PlainTag, PlainTagHandler } from '../../core/extract/run-tokenizer.ts';
import { repoRoot } from '../helpers/corpus.ts';
import { htmlFiles, pythonDocsPages } from '../helpers/html-pages.ts';
import { prng } from '../helpers/seeded-random.ts';

// RunTokenizer must hand its handler the tokens parse5's own Tokenizer does, for any input cut
// into any chunks, except that text is not cut at whitespace: compared with adjacent character and
// whitespace tokens joined, the streams must be equal. A handler that takes PlainTags gets most
// tags that way instead (no token): each is written down as the token parse5 would have given,
// every attribute asked for, and the stream must be equal all the same.

/** The states the extraction handler switches to after these start tags (html-links.ts). */
const RAW: Record<string, Tokenizer['state']> = {
  title: TokenizerMode.RCDATA,
  textarea: TokenizerMode.RCDATA,
  style: TokenizerMode.RAWTEXT,
  xmp: TokenizerMode.RAWTEXT,
  script: TokenizerMode.SCRIPT_DATA,
  plaintext: TokenizerMode.PLAINTEXT,
};

/** The token parse5 would have made of a PlainTag (read during the handler's call: it is reused). */
function tokenOf(tag: PlainTag): Token.TagToken {
  const attrs: Token.Attribute[] = [];
  for (let i = 0; i < tag.attrCount; i++) attrs.push({ name: tag.attrName(i), value: tag.attrValue(i) });
  return {
    type: tag.isEnd ? Token.TokenType.END_TAG : Token.TokenType.START_TAG,
    tagName: tag.tagName,
    tagID: tag.tagID,
    selfClosing: tag.selfClosing,
    ackSelfClosing: false,
    attrs,
    location: null,
  };
}

/**
 * Every token, as one line, in order; adjacent character and whitespace tokens as one text line.
 * With `plain`, the handler takes PlainTags too (and `counts` says how many tags came each way).
 */
function tokens(Impl: typeof Tokenizer, input: string, cuts: number[], plain = false, counts = { plain: 0, token: 0 }): string[] {
  const out: string[] = [];
  let text: string | null = null;
  let tokenizer: Tokenizer | null = null;
  const record =
    (kind: string) =>
    (token: object): void => {
      if (text !== null) out.push(`text ${JSON.stringify(text)}`);
      text = null;
      out.push(`${kind} ${JSON.stringify({ ...token, location: undefined })}`);
    };
  const addText = (token: { chars: string }): void => {
    text = (text ?? '') + token.chars;
  };
  const handler: TokenHandler = {
    onParseError: null,
    onComment: record('comment'),
    onDoctype: record('doctype'),
    onStartTag: (token) => {
      counts.token++;
      record('start')(token);
      const state = RAW[token.tagName];
      if (state !== undefined && tokenizer) tokenizer.state = state;
    },
    onEndTag: (token) => {
      counts.token++;
      record('end')(token);
    },
    onEof: record('eof'),
    onCharacter: addText,
    onNullCharacter: record('null'),
    onWhitespaceCharacter: addText,
  };
  const plainHandler: PlainTagHandler = {
    ...handler,
    onPlainTag: (tag) => {
      counts.plain++;
      const token = tokenOf(tag);
      record(tag.isEnd ? 'end' : 'start')(token);
      const state = tag.isEnd ? undefined : RAW[token.tagName];
      if (state !== undefined && tokenizer) tokenizer.state = state;
    },
  };
  tokenizer = new Impl({ sourceCodeLocationInfo: false }, plain ? plainHandler : handler);
  let from = 0;
  for (const cut of [...cuts, input.length]) {
    if (cut < from) continue;
    tokenizer.write(input.slice(from, cut), false);
    from = cut;
  }
  tokenizer.write('', true);
  return out;
}

// Pieces that exercise every stop of a run: markup, references, quotes, NUL, CR/LF pairs, all
// HTML whitespace, non-ASCII, surrogate pairs and lone surrogates, raw-text elements.
const PIECES = [
  '<', '</', '>', '/>', '&', '&amp;', '&lt', '&#x41;', '&#0;', '&notit;', '"', "'", '=', ' ', '  ', '\t', '\n', '\r', '\r\n',
  '\f', '\0', 'a', 'word', 'Text', 'é', 'ü ß', '\u00a0', '\u3000', '😀', '\ud83d', '\ude00', '<a href="', '<img src=\'',
  '<div class=x ', '<p>', '</p>', '<script>', '</script>', '<style>', '</style>', '<title>', '</title>', '<textarea>',
  '</textarea>', '<xmp>', '</xmp>', '<plaintext>', '<!--', '-->', '<!doctype html>', '<![CDATA[', ']]>', '<svg>', '<?x?>',
  'x'.repeat(40), ' '.repeat(17), 'AbC', '<SPAN Class="', "<p\tdata-x-y='", '<a-b:c ', '<Ünï ', 'aria-label=',
  '<' + 'n'.repeat(20) + ' ' + 'm'.repeat(15) + '=',
  // Whole tags, the plain ones RunTokenizer reads in one step and the near misses it leaves to parse5.
  '<a class="x y" href=\'z.html\'>', '<br/>', '<br />', '<input checked disabled>', '<a x="1" x="2" X="3">', '<a x="1" x="2">', '<a x y x>', '<a\nhref="q"\n>',
  '<a href="">', '</div>', '</a >', '</DIV>', '<Div>', '<img src="a"alt="b">', '<a href="x&amp;y">', '<p class=unq>', '<a b = "c">',
  '<e f="g"/ >', '<e f="g"/>', '<p\r\nclass="c">', '<p class="\r\n">', '<p title="a\nb">', '<x-y z:w="😀">', '<p data-\u00e9="\u00e9">',
  '<a href=/p/1.html>', '<img src=a alt=b/>', '<meta charset=utf-8>', '<a href=x&amp;y>', '<a b=c`d>', '<a b=c=d>', '<a b=c"d>',
  "<a b=c'd>", '<a b=c<d>', '<a b=>', '<a b=\r>', '<a b=c\nd=e>',
  '<' + 'p'.repeat(14) + ' ' + 'q'.repeat(14) + '="' + 'v'.repeat(14) + '">', '<a href="', '">', '" ', "'>",
];

function generated(seed: number): { input: string; cuts: number[] } {
  const rand = prng(seed);
  const parts: string[] = [];
  const n = 1 + Math.floor(rand() * 120);
  for (let i = 0; i < n; i++) parts.push(PIECES[Math.floor(rand() * PIECES.length)]!);
  const input = parts.join('');
  const cuts: number[] = [];
  for (let c = 0; c < input.length; c += 1 + Math.floor(rand() * 40)) if (rand() < 0.5) cuts.push(c);
  return { input, cuts };
}

function htmlFixtures(): string[] {
  return htmlFiles(path.join(repoRoot, 'test', 'fixtures', 'browser-site'));
}

/** SHA-256 of a token stream as `tokens` writes it. */
function digestOf(stream: string[]): string {
  return crypto.createHash('sha256').update(stream.join('\n')).digest('hex');
}

/** parse5's token stream of each Python docs page (in 4,099-character chunks), as its digest. */
const parse5Digests = new Map<string, string>();

describe('RunTokenizer', () => {
  describe.each([
    ['parse5 tokens only', false],
    ['PlainTags', true],
  ])('handing tags as %s', (_, plain) => {
    it('gives the same tokens as parse5 on generated input cut into random chunks (3,000 seeds)', () => {
      for (let seed = 1; seed <= 3000; seed++) {
        const { input, cuts } = generated(seed);
        const want = tokens(Tokenizer, input, cuts);
        const got = tokens(RunTokenizer, input, cuts, plain);
        if (got.join('\n') !== want.join('\n')) expect({ seed, input, got }).toEqual({ seed, input, got: want });
      }
    });

    it('gives the same tokens as parse5 on the HTML fixtures, whole and in 1 to 97-character chunks', () => {
      const files = htmlFixtures();
      expect(files.length).toBeGreaterThan(5);
      for (const file of files) {
        const input = fs.readFileSync(file, 'utf8');
        for (const step of [0, 1, 7, 97]) {
          const cuts: number[] = [];
          if (step > 0) for (let c = step; c < input.length; c += step) cuts.push(c);
          expect(tokens(RunTokenizer, input, cuts, plain), `${file} in chunks of ${step}`).toEqual(tokens(Tokenizer, input, cuts));
        }
      }
    });

    it('gives the same tokens as parse5 on every page of the Python docs, in 4,099-character chunks', (ctx) => {
      const files = pythonDocsPages(ctx);
      expect(files.length).toBeGreaterThan(100);
      for (const file of files) {
        const input = fs.readFileSync(file, 'utf8');
        const cuts: number[] = [];
        for (let c = 4099; c < input.length; c += 4099) cuts.push(c);
        const got = tokens(RunTokenizer, input, cuts, plain);
        // parse5's stream of a page is the same for both ways of handing tags: made once, kept as
        // a digest; on a difference it is made again, for the message.
        let want = parse5Digests.get(file);
        if (want === undefined) parse5Digests.set(file, (want = digestOf(tokens(Tokenizer, input, cuts))));
        if (digestOf(got) !== want) expect(got, `${file} in ${cuts.length + 1} chunks`).toEqual(tokens(Tokenizer, input, cuts));
      }
    }, 120_000);

    it('reads long text, attribute values and script in runs that still end where parse5 ends them', () => {
      const text = 'lorem ipsum '.repeat(20_000);
      const input = `<p title="${'v '.repeat(5000)}&amp;x">${text}</p><script>${'var a = 1 < 2;\n'.repeat(3000)}</script>é😀\r\n<b>`;
      expect(tokens(RunTokenizer, input, [65_536, 65_537, 131_072], plain)).toEqual(tokens(Tokenizer, input, [65_536, 65_537, 131_072]));
    });

    it('reads whole tags, and their near misses, as parse5 does', () => {
      const tags = [
        '<a b= c>', '<a b =c>', '<a b=c\td>', '<a b=c\fd>', '<a b=\tc>', '<a b=c\r\nd=e>', '<a b=c/>', '<a b=c />', '<a b="c"/>',
        '<a b=c d>', '<a b c=d e="f" g=\'h\' i>', '<a b="c"d>', '<a\fb="c">', '<a b="c" b=d b>', '<A b=c>', '<a B=c>', '<a b=C>',
        '<a b=>', '<a b=">', '<a b=c&amp;d>', '<a b=c&d>', '<a b="c&d">', '<a b=c\0d>', '<a b="\0">', '</a b>', '</a/>', '</a\n>',
        '<a b=😀>', '<a b="😀">', '<a 😀=c>', '<é b=c>', '<a b=c\u00a0d>', '<a/b=c>', '<a b=c/ d=e>',
      ];
      for (const tag of tags) {
        for (const input of [tag, `x${tag}y`, `${tag}${tag}`]) {
          expect(tokens(RunTokenizer, input, [], plain), JSON.stringify(input)).toEqual(tokens(Tokenizer, input, []));
          for (let cut = 1; cut < input.length; cut++) {
            expect(tokens(RunTokenizer, input, [cut], plain), `${JSON.stringify(input)} cut at ${cut}`).toEqual(tokens(Tokenizer, input, [cut]));
          }
        }
      }
    });

    it('reads text between whole tags as parse5 does, cut at every position', () => {
      const inputs = [
        '<p>a b</p>\n<i>é x</i>  <br/>t',
        '<b>c\0d</b><i>\r\n</i><s>x\ry</s>',
        '<u>&amp;a</u>b&c<a href=x>😀</a>\ud800<p>',
        '</p>x<!--c--><p>y<P>z<p> \t\f<q>',
        '<title>a<b>c</title>d<i>e<script>f<g>h</script>i<p>',
      ];
      for (const input of inputs) {
        expect(tokens(RunTokenizer, input, [], plain), JSON.stringify(input)).toEqual(tokens(Tokenizer, input, []));
        for (let cut = 1; cut < input.length; cut++) {
          expect(tokens(RunTokenizer, input, [cut], plain), `${JSON.stringify(input)} cut at ${cut}`).toEqual(tokens(Tokenizer, input, [cut]));
          const cuts = [cut, cut + 3];
          expect(tokens(RunTokenizer, input, cuts, plain), `${JSON.stringify(input)} cut at ${cuts}`).toEqual(tokens(Tokenizer, input, cuts));
        }
      }
    });

    it('leaves a CR LF pair around a whole tag to the preprocessor', () => {
      for (const input of ['a\r<p>\nb', '\r<p>\n</p>\r</p>\nx', '<b>\r</b>\n<i>\r\n</i>', 'x\r\n<br/>\r\n']) {
        expect(tokens(RunTokenizer, input, [], plain), JSON.stringify(input)).toEqual(tokens(Tokenizer, input, []));
      }
    });
  });

  it('hands plain tags over as PlainTags, and raw-text start tags and repeated attribute names as tokens', () => {
    const way = (input: string): { plain: number; token: number } => {
      const counts = { plain: 0, token: 0 };
      expect(tokens(RunTokenizer, input, [], true, counts), JSON.stringify(input)).toEqual(tokens(Tokenizer, input, []));
      return counts;
    };
    // With and without attributes a crawler reads, start and end tags, self-closing, valueless.
    for (const tag of ['<p>', '<a href="x.html">', '<div class="c" id=d>', '<img src=a.png alt="">', '<br/>', '<input checked>', '</a>', '</div>']) {
      expect(way(`x${tag}y`), tag).toEqual({ plain: 1, token: 0 });
    }
    // Raw-text elements: the start tag switches the tokenizer's state and comes as a token; parse5's
    // raw-text states read the end tag themselves; the tag after it is plain again.
    for (const tag of ['script', 'style', 'title', 'textarea', 'xmp']) {
      expect(way(`<${tag} class=x>a<b>c</${tag}>d<i>`), tag).toEqual({ plain: 1, token: 2 });
    }
    for (const tag of ['iframe', 'noembed', 'noframes']) expect(way(`<${tag} class=x>`), tag).toEqual({ plain: 0, token: 1 });
    expect(way('<plaintext>a</plaintext>')).toEqual({ plain: 0, token: 1 });
    // A repeated name: parse5's token, which keeps the first.
    expect(way('<a href="1" class=c href="2">')).toEqual({ plain: 0, token: 1 });
    expect(way('<a b c b>')).toEqual({ plain: 0, token: 1 });
    // Near misses are read by parse5 itself.
    expect(way('<A href=x>')).toEqual({ plain: 0, token: 1 });
    expect(way('<a href=x&amp;y>')).toEqual({ plain: 0, token: 1 });
  });

  it('makes an attribute string only when asked, the same whichever are asked and in which order', () => {
    const input = '<a href="/p/1.html" class=\'c d\' data-x=y checked title="t">x</a><img src=z.png alt="a b"/>';
    const want: Token.Attribute[][] = [];
    const noop = (): void => {};
    const base: TokenHandler = {
      onParseError: null,
      onComment: noop,
      onDoctype: noop,
      onStartTag: (token) => void want.push(token.attrs),
      onEndTag: noop,
      onEof: noop,
      onCharacter: noop,
      onNullCharacter: noop,
      onWhitespaceCharacter: noop,
    };
    new Tokenizer({ sourceCodeLocationInfo: false }, base).write(input, true);
    expect(want.map((attrs) => attrs.length)).toEqual([5, 2]);
    // Each attribute alone (value, then name), then all backwards.
    for (let pick = -1; pick < 5; pick++) {
      const got: string[][] = [];
      const handler: PlainTagHandler = {
        ...base,
        onStartTag: () => expect.unreachable('a plain tag came as a token'),
        onPlainTag: (tag) => {
          if (tag.isEnd) return;
          const seen: string[] = [];
          if (pick >= 0 && pick < tag.attrCount) seen.push(tag.attrValue(pick), tag.attrName(pick));
          if (pick < 0) for (let i = tag.attrCount - 1; i >= 0; i--) seen.push(tag.attrValue(i), tag.attrName(i), tag.attrValue(i));
          got.push(seen);
        },
      };
      new RunTokenizer({ sourceCodeLocationInfo: false }, handler).write(input, true);
      const expected = want.map((attrs) => {
        if (pick >= 0) return pick < attrs.length ? [attrs[pick]!.value, attrs[pick]!.name] : [];
        return [...attrs].reverse().flatMap((a) => [a.value, a.name, a.value]);
      });
      expect(got, `pick ${pick}`).toEqual(expected);
    }
  });

  it('drops the input read so far after a PlainTag, as parse5 does after a tag token', () => {
    const noop = (): void => {};
    let longest = 0;
    let tokenizer: RunTokenizer | null = null;
    const handler: PlainTagHandler = {
      onParseError: null,
      onComment: noop,
      onDoctype: noop,
      onStartTag: noop,
      onEndTag: noop,
      onEof: noop,
      onCharacter: noop,
      onNullCharacter: noop,
      onWhitespaceCharacter: noop,
      onPlainTag: () => {
        // The preprocessor's buffer (parse5 drops what was read once past 64 KiB).
        longest = Math.max(longest, (tokenizer as unknown as { preprocessor: { html: string } }).preprocessor.html.length);
      },
    };
    tokenizer = new RunTokenizer({ sourceCodeLocationInfo: false }, handler);
    for (let i = 0; i < 40; i++) tokenizer.write('<p class="c">text</p>'.repeat(1000), false);
    tokenizer.write('', true);
    expect(longest).toBeLessThan(2 * 65_536 + 21_000);
  });

  it('joins text over whitespace, and leaves whitespace between tags a whitespace token', () => {
    const kinds: string[] = [];
    const push = (kind: string) => (token: { chars: string }) => kinds.push(`${kind}:${token.chars}`);
    const noop = (): void => {};
    const handler: TokenHandler = {
      onParseError: null,
      onComment: noop,
      onDoctype: noop,
      onStartTag: noop,
      onEndTag: noop,
      onEof: noop,
      onCharacter: push('chars'),
      onNullCharacter: push('null'),
      onWhitespaceCharacter: push('space'),
    };
    const t = new RunTokenizer({ sourceCodeLocationInfo: false }, handler);
    t.write('<p>one two\n three</p>\n  <p> \t four</p>', true);
    expect(kinds).toEqual(['chars:one two\n three', 'space:\n  ', 'chars: \t four']);
  });

  it('refuses source locations, which it does not keep up to date over a run', () => {
    const handler = {} as TokenHandler;
    expect(() => new RunTokenizer({ sourceCodeLocationInfo: true }, handler)).toThrow(/source locations/);
  });
});
