/**
 * Page-level robots directives: `<meta name="robots" content="…">` and the `X-Robots-Tag` header.
 * Trove acts on `nofollow`/`none` (stop extracting links from this page); `noindex` is reported
 * but ignored, since an archive keeps the page anyway (Heritrix's behaviour; docs/FORMATS.md, "robots.txt").
 *
 * `X-Robots-Tag` may scope directives to one crawler: `googlebot: nofollow`. A scope runs until
 * the next one (`googlebot: noindex, otherbot: nofollow, noarchive` gives otherbot two), and
 * directives outside any scope apply to everyone. The `<meta name="trove">` form is the caller's
 * concern: pass its content without an agent token.
 */

export interface RobotsDirectives {
  nofollow: boolean;
  noindex: boolean;
  /** `none` = `noindex, nofollow`; both flags are set too. */
  none: boolean;
}

/** Directives that take a value after a colon, so `max-snippet: 20` is not a scope named max-snippet. */
const VALUED = new Set(['max-snippet', 'max-image-preview', 'max-video-preview', 'unavailable_after']);

/** A scope prefix: an agent token (starting with a letter) and a colon. */
const SCOPE = /^([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(.*)$/s;

/**
 * Parse a meta robots content or X-Robots-Tag value (several header values may be joined with
 * `, `). Directives are case-insensitive; unknown ones are ignored. With `agentToken`, scoped
 * directives apply only when the scope names that token (case-insensitive); without it, only
 * unscoped directives apply.
 */
export function parseRobotsDirectives(value: string, agentToken?: string): RobotsDirectives {
  const out: RobotsDirectives = { nofollow: false, noindex: false, none: false };
  const me = agentToken?.toLowerCase();
  let scope: string | null = null;
  for (const part of value.split(',')) {
    let item = part.trim();
    const scoped = SCOPE.exec(item);
    if (scoped !== null && !VALUED.has(scoped[1]!.toLowerCase())) {
      scope = scoped[1]!.toLowerCase();
      item = scoped[2]!.trim();
    }
    if (scope !== null && scope !== me) continue;
    switch (item.toLowerCase()) {
      case 'nofollow':
        out.nofollow = true;
        break;
      case 'noindex':
        out.noindex = true;
        break;
      case 'none':
        out.none = out.nofollow = out.noindex = true;
        break;
    }
  }
  return out;
}
