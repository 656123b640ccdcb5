import { describe, expect, it } from 'vitest';
import { runCli } from '../../core/cli/main.ts';

/** Run `trove <args>` in process through the CLI's own entry point, capturing its output. */
async function trove(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
  });
  return { code, out, err };
}

/** The blocks printed per URL: header line, then formatDecision's lines. */
function blocks(out: string): string[][] {
  return out
    .trim()
    .split('\n\n')
    .map((b) => b.split('\n'));
}

describe('trove scope test', () => {
  it('judges each URL with its reason; --explain adds the trace; exit 1 when any is rejected', async () => {
    const args = ['scope', 'test', 'https://example.com/docs/a.html', 'https://example.com/blog/', '--seed', 'https://example.com/docs/'];
    const r = await trove(...args);
    expect(r.code).toBe(1);
    expect(r.err).toBe('');
    const [a, b] = blocks(r.out);
    expect(a).toEqual([
      'URL https://example.com/docs/a.html (hops "")',
      'ACCEPT',
      'ACCEPT by scope-prefix: under http://(com,example,)/docs/ (seed https://example.com/docs/) (rule 2)',
    ]);
    expect(b![1]).toBe('REJECT');
    expect(b![2]).toBe('REJECT: not under https://example.com/docs/ (prefix scope of seed https://example.com/docs/)');
    const explained = blocks((await trove(...args, '--explain')).out);
    expect(explained[0]![3]).toBe('trace:');
    expect(explained[1]!.some((l) => /^>\s+1\. reject-all\s+REJECT/.test(l))).toBe(true);
  });

  it('exits 0 when every URL is accepted', async () => {
    const r = await trove('scope', 'test', '--seed', 'https://example.com/docs/', 'https://example.com/docs/a', 'https://example.com/docs/b/c');
    expect(r.code).toBe(0);
    expect(blocks(r.out).map((b) => b[1])).toEqual(['ACCEPT', 'ACCEPT']);
  });

  it('gives the same answer whatever the order of --seed and the URLs, and never takes a URL as a seed', async () => {
    const want = 'REJECT: other host other.org (prefix scope of seed https://example.com/docs/)';
    for (const args of [
      ['--seed', 'https://example.com/docs/', 'https://other.org/x'],
      ['https://other.org/x', '--seed', 'https://example.com/docs/'],
    ]) {
      const r = await trove('scope', 'test', ...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(blocks(r.out).map((b) => b[2])).toEqual([want]);
    }
    // A URL after --seed S is a URL to judge, not a second seed (the old variadic --seed took it).
    const r = await trove('scope', 'test', 'https://example.com/docs/a', '--seed', 'https://example.com/docs/', 'https://other.org/x');
    expect(blocks(r.out).map((b) => b[1])).toEqual(['ACCEPT', 'REJECT']);
    // Nor is one after --exclude a pattern.
    const ex = await trove('scope', 'test', '--exclude', 'zzz', 'https://example.com/docs/a', '--seed', 'https://example.com/docs/');
    expect(ex.code).toBe(0);
    expect(blocks(ex.out)[0]![0]).toBe('URL https://example.com/docs/a (hops "")');
  });

  it('marks a URL equal to a seed as a seed', async () => {
    const r = await trove('scope', 'test', 'https://other.org/', '--seed', 'https://other.org/', '--scope', 'page');
    expect(blocks(r.out)[0]![0]).toBe('URL https://other.org/ (hops "", seed)');
    expect(blocks(r.out)[0]![2]).toBe('ACCEPT by scope-page: a seed (rule 2)');
  });

  it('uses --hops, --via (relative URLs too), --include, --exclude and the numeric limits', async () => {
    const embed = await trove('scope', 'test', '/img/logo.png', '--via', 'https://cdn.example.net/page', '--hops', 'LE', '--seed', 'https://example.com/');
    expect(blocks(embed.out)[0]![0]).toBe('URL https://cdn.example.net/img/logo.png (hops "LE", via https://cdn.example.net/page)');
    expect(blocks(embed.out)[0]![2]).toContain('ACCEPT by transclusion');

    const noTrans = await trove('scope', 'test', 'https://cdn.example.net/x.png', '--hops', 'LE', '--trans-hops', '0', '--seed', 'https://example.com/');
    expect(blocks(noTrans.out)[0]![1]).toBe('REJECT');

    const excluded = await trove('scope', 'test', 'https://example.com/blog/x', '--include', 'blog', '--exclude', 'x$', '--seed', 'https://example.com/docs/');
    expect(blocks(excluded.out)[0]![2]).toBe('REJECT by exclude-regex: matched /x$/ (rule 6)');

    const deep = await trove('scope', 'test', 'https://example.com/a', '--hops', 'LLL', '--max-hops', '2', '--seed', 'https://example.com/');
    expect(blocks(deep.out)[0]![2]).toBe('REJECT by max-hops: too many hops: 3 (LLL) > max-hops 2 (rule 4)');
  });

  it('takes several seeds, includes and excludes, each repeated', async () => {
    const r = await trove('scope', 'test', '--seed', 'https://a.org/x/', '--seed', 'https://b.org/', 'https://b.org/anything', 'https://a.org/x/y', '--include', '/inc1/', '--include', '/inc2/', 'https://c.org/inc2/z');
    expect(r.code).toBe(0);
    expect(blocks(r.out).map((b) => b[1])).toEqual(['ACCEPT', 'ACCEPT', 'ACCEPT']);
    const ex = await trove('scope', 'test', '--seed', 'https://a.org/', '--exclude', 'one', '--exclude', 'two', 'https://a.org/one', 'https://a.org/two', 'https://a.org/three');
    expect(ex.code).toBe(1);
    expect(blocks(ex.out).map((b) => b[1])).toEqual(['REJECT', 'REJECT', 'ACCEPT']);
  });

  it('prints the rule sequence with --show-rules', async () => {
    const r = await trove('scope', 'test', 'https://example.com/', '--seed', 'https://example.com/', '--show-rules');
    const first = blocks(r.out)[0]!;
    expect(first[0]).toBe('rules:');
    expect(first[1]).toBe('  1. reject-all: REJECT every URL unless a later rule accepts it');
    expect(first.length).toBe(13);
    expect(first[12]).toMatch(/^  12\. logout-guard: REJECT log-out URLs/);
  });

  it('rejects log-out URLs with the logout-guard, and --fetch-logout-urls turns it off', async () => {
    const r = await trove('scope', 'test', 'https://example.com/account/sign-out', 'https://example.com/x?do=LogOff', '--seed', 'https://example.com/', '--explain');
    expect(r.code).toBe(1);
    const [a, b] = blocks(r.out);
    expect(a![2]).toBe('REJECT by logout-guard: a log-out URL ("sign-out" in the path): fetching it would end the login session (rule 12)');
    expect(b![2]).toMatch(/^REJECT by logout-guard: a log-out URL \("LogOff" in the query\)/);
    expect(a!.some((l) => /^> +12\. logout-guard +REJECT/.test(l))).toBe(true);
    const off = await trove('scope', 'test', 'https://example.com/account/sign-out', '--seed', 'https://example.com/', '--fetch-logout-urls');
    expect(off.code).toBe(0);
  });

  it('judges a non-http URL (REJECT by scheme) without failing', async () => {
    const r = await trove('scope', 'test', 'mailto:a@example.com', '--seed', 'https://example.com/');
    expect(r.code).toBe(1);
    expect(blocks(r.out)[0]![2]).toBe('REJECT by scheme: scheme mailto is not http or https (rule 11)');
  });

  it('reports an invalid URL on stderr, still judges the others, and exits 2', async () => {
    const r = await trove('scope', 'test', 'http://[oops', 'https://example.com/a', '--seed', 'https://example.com/');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^trove scope test: Not a valid URL: http:\/\/\[oops.* \[URL_INVALID\]$/m);
    expect(r.err).toContain("trove scope test: 1 of 2 URLs could not be judged [URL_INVALID]\nTry 'trove scope test --help'.\n");
    expect(blocks(r.out).length).toBe(1);
    expect(blocks(r.out)[0]![1]).toBe('ACCEPT');
  });

  it.each([
    [['--seed', 'not a url'], 'Not a valid URL'],
    [['--seed', 'mailto:x@example.com'], 'Only http and https'],
    [['--seed', 'https://example.com/', '--exclude', '('], 'not a valid regular expression'],
    [['--seed', 'https://example.com/', '--hops', 'LQ'], '--hops must use only'],
    [['--seed', 'https://example.com/', '--via', '::bad'], 'Not a valid URL'],
  ])('exits 2 with a message for bad input %j', async (opts, message) => {
    const r = await trove('scope', 'test', 'https://example.com/a', ...opts);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.out).toBe('');
  });

  it('refuses a bad preset, number or flag as a usage error (exit 2, one form, pointing at --help)', async () => {
    expect((await trove('scope', 'test', 'https://e.org/', '--seed', 'https://e.org/', '--scope', 'site')).code).toBe(2);
    const r = await trove('scope', 'test', 'https://e.org/', '--seed', 'https://e.org/', '--max-hops', 'ten');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^trove scope test: option '--max-hops <n>' argument 'ten' is invalid\. .* \[CLI_USAGE\]\nTry 'trove scope test --help'\.\n$/);
    const unknown = await trove('scope', 'test', 'https://e.org/', '--sed', 'https://e.org/');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/^trove scope test: unknown option '--sed' \(Did you mean --seed\?\) \[CLI_USAGE\]\n/);
    expect(unknown.out).toBe('');
  });

  it('needs seeds, from --seed or a --config (exit 2, like every bad setting)', async () => {
    expect((await trove('scope', 'test', 'https://e.org/')).code).toBe(2);
  });
});
