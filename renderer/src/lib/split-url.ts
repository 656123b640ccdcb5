/** A URL in parts, as the lists show it: `scheme://host` and the rest (so the path can stand out, or stand alone), and the host alone. */

/** `scheme://host` and the rest (`/` when there is none). */
export function splitUrl(url: string): { origin: string; rest: string } {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(.*)$/i.exec(url);
  return m ? { origin: m[1]!, rest: m[2] || '/' } : { origin: '', rest: url };
}

/** The host (and port) of a URL, or the URL itself when it has none. */
export function hostOf(url: string): string {
  const { origin } = splitUrl(url);
  return origin ? origin.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '') : url;
}
