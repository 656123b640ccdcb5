/**
 * Rewriting the URLs of a stylesheet (a .css file, a `<style>` block or a `style` attribute) for
 * the mirror: `url(…)` in any quoting and `@import "…"`.
 *
 * A regular expression suffices here because it only has to find URL tokens, not understand the
 * sheet, and each alternative is a negated character class (linear time on any input). A URL
 * written with CSS escapes (`url(a\)b.png)`) does not match and is left as it is; so are the
 * strings of `image-set("a.png" 1x)`, which are rare. Comments are not skipped: rewriting a URL
 * inside a comment is harmless.
 */

/** Returns the new URL for a raw one, or null to leave it unchanged. */
export type LinkRewriter = (raw: string) => string | null;

const CSS_URL = /url\(\s*(?:"([^"\n]*)"|'([^'\n]*)'|([^)"'\s\\]+))\s*\)|@import\s+(?:"([^"\n]*)"|'([^'\n]*)')/gi;

/** The stylesheet with its URLs rewritten; `changed` tells whether anything was. */
export function rewriteCss(css: string, rewrite: LinkRewriter): { css: string; changed: boolean } {
  let changed = false;
  const out = css.replace(CSS_URL, (whole, d1?: string, s1?: string, bare?: string, d2?: string, s2?: string) => {
    const isImport = d2 !== undefined || s2 !== undefined;
    const raw = (isImport ? (d2 ?? s2) : (d1 ?? s1 ?? bare))!.trim();
    if (raw === '') return whole;
    const next = rewrite(raw);
    if (next === null || next === raw) return whole;
    changed = true;
    const quoted = `"${next.replace(/["\\\n]/g, (c) => `\\${c === '\n' ? 'a ' : c}`)}"`;
    return isImport ? `@import ${quoted}` : `url(${quoted})`;
  });
  return { css: out, changed };
}
