/** A URL as the record list shows it: `scheme://host` and the rest, so the path can stand out (or stand alone). */
export function splitUrl(url: string): { origin: string; rest: string } {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(.*)$/i.exec(url);
  return m ? { origin: m[1]!, rest: m[2] || '/' } : { origin: '', rest: url };
}
