/**
 * A link in a mirrored page, rewritten: a relative path when its URL is in the mirror, an
 * absolute URL when it is not (a relative link to a page that was not captured would otherwise
 * point at a missing file), untouched for fragments and non-web schemes.
 */
import path from 'node:path';
import type { MirrorPlan } from './mirror-plan.ts';

/** A link's new value: a relative path to a mirrored file, an absolute URL, or null (leave it). */
export function rewriteLink(plan: MirrorPlan, from: string, raw: string, base: URL): { value: string; local: boolean } | null {
  const t = raw.trim();
  if (t === '' || t.startsWith('#')) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(t) && !/^https?:/i.test(t)) return null; // mailto:, data:, javascript: …
  const u = URL.parse(t, base);
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) return null;
  const hash = u.hash;
  u.hash = '';
  const target = plan.pathFor(u.href);
  if (target === null) return { value: u.href + hash, local: false };
  return { value: relativeLink(from, target) + hash, local: true };
}

/** `a/b/c.html` → `a/d/e.png` is `../d/e.png`, each segment percent-encoded for use in a URL. */
export function relativeLink(from: string, to: string): string {
  const rel = path.posix.relative(path.posix.dirname(from), to);
  return rel.split('/').map((s) => (s === '..' ? s : encodeURIComponent(s))).join('/');
}
