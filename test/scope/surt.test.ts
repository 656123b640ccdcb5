import fs from 'node:fs';
import { WARCParser, jsonToQueryString, mfdToQueryString } from 'warcio';
import { describe, expect, it } from 'vitest';
import { heritrixSurt, heritrixSurtOf, hostToSurt, surt, surtCanonicalUrl, surtKey } from '../../core/scope/surt.ts';
import type { SurtOptions } from '../../core/scope/surt.ts';
import { corpusPath } from '../helpers/corpus.ts';

interface Vector {
  id: string;
  kind: 'surt' | 'host_to_surt' | 'canonicalize';
  url?: string | null;
  host?: string;
  surt?: string;
  canonical?: string;
  style?: string;
  canonicalizer?: string;
  options?: Record<string, unknown>;
  xfail?: boolean;
  python_surt_0_3_result?: string;
}

const vectors = JSON.parse(fs.readFileSync(corpusPath('surt-vectors.json'), 'utf8')) as Vector[];

/** python-surt's keyword options → ours. */
function optionsOf(o: Record<string, unknown> = {}): SurtOptions {
  return {
    withScheme: o.with_scheme as boolean | undefined,
    trailingComma: o.trailing_comma as boolean | undefined,
    hostMassage: o.host_massage as boolean | undefined,
    reverseIpAddr: o.reverse_ipaddr as boolean | undefined,
    queryLowercase: o.query_lowercase as boolean | undefined,
    canonicalizer: typeof o.canonicalizer === 'string' && o.canonicalizer.startsWith('identity') ? 'none' : 'default',
  };
}

// Our CDXJ key targets python-surt (what pywb computes for lookups); other styles in the file
// (webarchive-commons, warcio.js) disagree with it on purpose and are not tested.
const pythonSurt = vectors.filter((v) => v.kind === 'surt' && v.style === 'python-surt');

describe('surt: every python-surt vector', () => {
  it('has the vectors', () => {
    expect(pythonSurt.length).toBeGreaterThanOrEqual(30);
  });

  it.each(pythonSurt.map((v) => [v.id, JSON.stringify(v.options ?? {}), v] as const))('%s %s', (_id, _opts, v) => {
    // An xfail vector is an upstream known bug: we follow what upstream returns today.
    const want = v.xfail ? (v.python_surt_0_3_result ?? v.surt) : v.surt;
    expect(surt(v.url, optionsOf(v.options))).toBe(want);
  });
});

describe('surtCanonicalUrl: python-surt canonicalizer vectors', () => {
  const canon = vectors.filter((v) => v.kind === 'canonicalize' && v.canonicalizer!.startsWith('python-surt '));
  const which = (name: string): SurtOptions['canonicalizer'] =>
    name.includes('GoogleURLCanonicalizer') ? 'google' : name.includes('DefaultIAURLCanonicalizer') ? 'default' : 'ia';

  it.each(canon.map((v) => [v.id, v.canonicalizer!, v] as const))('%s %s', (_id, name, v) => {
    expect(surtCanonicalUrl(v.url!, { ...optionsOf(v.options), canonicalizer: which(name) })).toBe(v.canonical);
  });
});

describe('hostToSurt', () => {
  const hosts = vectors.filter((v) => v.kind === 'host_to_surt');
  it.each(hosts.map((v) => [v.id, v.host!, v] as const))('%s %s', (_id, host, v) => {
    expect(hostToSurt(host, { reverseIpAddr: v.options?.reverse_ipaddr as boolean | undefined })).toBe(v.surt);
  });

  it('adds a trailing comma to names only when asked', () => {
    expect(hostToSurt('www.example.com', { trailingComma: true })).toBe('com,example,www,');
    expect(hostToSurt('10.0.0.1', { trailingComma: true })).toBe('1,0,0,10');
  });
});

describe('heritrixSurt: Heritrix SURT.fromURI vectors', () => {
  const her = vectors.filter((v) => v.kind === 'surt' && v.style!.startsWith('heritrix'));
  it.each(her.map((v) => [v.id, v.url!, v.surt!] as const))('%s %s', (_id, url, want) => {
    expect(heritrixSurt(url)).toBe(want);
  });

  it('does not reverse an IPv4 host and leaves non-authority strings alone', () => {
    expect(heritrixSurt('http://127.0.0.1:8080/a')).toBe('http://(127.0.0.1:8080)/a');
    expect(heritrixSurt('mailto:x@example.org')).toBe('mailto:x@example.org');
  });

  it('heritrixSurtOf builds the same form from a parsed URL, without userinfo or fragment', () => {
    expect(heritrixSurtOf(new URL('https://u:p@www.Example.org:8443/A/b?q#f'))).toBe('https://(org,example,www,:8443)/A/b?q');
    expect(heritrixSurtOf(new URL('http://[::1]:81/'))).toBe('http://([::1]:81)/');
  });
});

describe('surtKey (the CDXJ urlkey)', () => {
  it('is the python-surt default key', () => {
    expect(surtKey('http://www.archive.org/goo/?b=2&a=1#x')).toBe('org,archive)/goo?a=1&b=2');
    expect(surtKey('https://www.example.com:443/')).toBe('com,example)/');
    expect(surtKey('http://some.example.com:8080/')).toBe('com,example,some:8080)/');
    expect(surtKey('dns:example.com')).toBe('dns:example.com');
    expect(surtKey('urn:X-wpull:log')).toBe('urn:x-wpull:log');
  });

  it('gives - for nothing, and never throws on odd input', () => {
    expect(surtKey('')).toBe('-');
    expect(surtKey(null)).toBe('-');
    for (const odd of ['http://', 'http://a:99999/x', 'http://[::1/x', '%%%', '   ', 'http://ex ample.com/a b', '\u2603.com']) {
      expect(typeof surtKey(odd)).toBe('string');
    }
    expect(surtKey('\u2603.com/x')).toBe('com,xn--n3h)/x');
  });

  it('leaves GET alone and appends __wb_method for other methods as pywb does', () => {
    expect(surtKey('http://e.org/a?x=1', { method: 'GET', postQuery: 'ignored=1' })).toBe('org,e)/a?x=1');
    expect(surtKey('http://e.org/a', { method: 'HEAD' })).toBe('org,e)/a?__wb_method=head');
    expect(surtKey('http://e.org/a?z=1', { method: 'post', postQuery: 'b=2' })).toBe('org,e)/a?__wb_method=post&b=2&z=1');
  });

  it('gives the keys warcio.js expects for the POST captures of post-test-more.warc', async () => {
    // The upstream expectation (warcio.js test "post append 2") as recorded in EXPECTED.json.
    const expected = (JSON.parse(fs.readFileSync(corpusPath('warc', 'EXPECTED.json'), 'utf8')) as { file: string; upstream_expectations?: string[] }[])
      .find((e) => e.file === 'warc/warcio.js/post-test-more.warc')!;
    const text = expected.upstream_expectations!.join(' ');
    const wantByOffset = new Map([...text.matchAll(/(org,httpbin\)\/\S+) \((?:offset )?(\d+)/g)].map((m) => [Number(m[2]), m[1]!]));
    expect(wantByOffset.size).toBe(3);

    // Read the file with warcio (an independent reader) and turn each request body into the
    // query pywb would append (warcio's own converters), then key the response's URL.
    const parser = new WARCParser(fs.createReadStream(corpusPath('warc', 'warcio.js', 'post-test-more.warc')));
    const got = new Map<number, string>();
    let responseOffset = -1;
    for await (const record of parser) {
      const body = await record.readFully(false);
      if (record.warcType === 'response') responseOffset = parser.offset;
      if (record.warcType !== 'request') continue;
      const contentType = record.httpHeaders?.headers.get('content-type') ?? '';
      const mime = contentType.split(';')[0]!.trim();
      const postQuery =
        mime === 'application/json'
          ? jsonToQueryString(new TextDecoder().decode(body))
          : mime === 'multipart/form-data'
            ? mfdToQueryString(body, contentType)
            : `__wb_post_data=${Buffer.from(body).toString('base64')}`;
      const method = record.httpHeaders!.method!;
      got.set(responseOffset, surtKey(record.warcTargetURI!, { method, postQuery }));
    }
    expect(Object.fromEntries(got)).toEqual(Object.fromEntries(wantByOffset));
  });
});
