import { describe, expect, it } from 'vitest';
import { attrRule, mayHaveAttrRule } from '../../core/extract/html-link-rules.ts';
import { extractHtml } from '../../core/extract/html-links.ts';
import { extractHtml as referenceExtractHtml } from './reference/html-links.ts';

// mayHaveAttrRule turns attribute names away by length and first character before their rules are
// looked up: it must never turn away a name that has a rule on some element. The names below are
// every attribute the link rules know (HTML, SVG, data-*, event handlers), written out here on
// purpose: the test checks the rule tables through their public lookup, not by reading them.
const RULE_ATTRS: [tag: string, name: string, foreign: boolean][] = [
  ...['src', 'lowsrc', 'poster', 'background', 'longdesc', 'srcset', 'imagesrcset', 'style'].map((n): [string, string, boolean] => ['div', n, false]),
  ...['data-href', 'data-uri', 'data-src', 'data-original', 'data-lazy-src', 'data-bg', 'data-srcset', 'data-lazy-srcset'].map(
    (n): [string, string, boolean] => ['div', n, false],
  ),
  ...['onclick', 'onmouseover', 'onx', 'on-a-very-long-event-handler-name-indeed'].map((n): [string, string, boolean] => ['div', n, false]),
  ['a', 'href', false],
  ['area', 'href', false],
  ['object', 'data', false],
  ...['blockquote', 'q', 'del', 'ins'].map((t): [string, string, boolean] => [t, 'cite', false]),
  ...['a', 'image', 'use', 'feimage'].flatMap((t): [string, string, boolean][] => [
    [t, 'href', true],
    [t, 'xlink:href', true],
  ]),
];

describe('mayHaveAttrRule', () => {
  it('never turns away an attribute that has a rule', () => {
    for (const [tag, name, foreign] of RULE_ATTRS) {
      expect(attrRule(tag, name, foreign), `${tag} ${name}`).not.toBeNull();
      expect(mayHaveAttrRule(name.length, name.charCodeAt(0)), `${tag} ${name}`).toBe(true);
    }
  });

  it('turns away the common attributes that have none', () => {
    for (const name of ['class', 'id', 'title', 'alt', 'type', 'role', 'rel', 'name', 'aria-label', 'value', 'width', 'é', 'o', 'on']) {
      expect(attrRule('a', name, false), name).toBeNull();
      expect(mayHaveAttrRule(name.length, name.charCodeAt(0)), name).toBe(false);
    }
  });

  it('leaves extractHtml as it was with every rule attribute, as a plain tag and as parse5 reads it', () => {
    const tags = RULE_ATTRS.map(([tag, name, foreign], i) => {
      const value = name.startsWith('on') ? `go('/e${i}.html')` : `u${i}.html`;
      const plain = `<${tag} class="c" ${name}="${value}" id=x>`;
      // Upper-case names are left to parse5 (its token), which lowers them.
      const token = `<${tag} ${name.toUpperCase()}="v${i}.png" title='t'>`;
      const one = name === 'style' ? `<${tag} style="background:url(s${i}.png)">` : `${plain}${token}`;
      return foreign ? `<svg>${one}</svg>` : one;
    });
    const body = Buffer.from(`<!doctype html><body>${tags.join('\n')}</body>`);
    const opts = { baseUrl: 'http://rules.test/dir/page.html', contentType: 'text/html', maxLinks: 1000 };
    const got = extractHtml(body, opts);
    expect(got).toEqual(referenceExtractHtml(body, opts));
    expect(got.outlinks.length).toBeGreaterThan(RULE_ATTRS.length);
  });
});
