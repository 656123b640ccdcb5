import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerScopeCommand } from '../../core/cli/scope-command.ts';

/** Run `trove <args>` in process, capturing what commander and the command write. */
async function trove(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const program = new Command('trove').exitOverride().configureOutput({
    writeOut: (s) => {
      out += s;
    },
    writeErr: (s) => {
      err += s;
    },
  });
  registerScopeCommand(program);
  try {
    await program.parseAsync(args, { from: 'user' });
    return { code: 0, out, err };
  } catch (e) {
    if (e instanceof CommanderError) return { code: e.exitCode, out, err };
    throw e;
  }
}

/** The blocks printed per URL: header line, then formatDecision's lines. */
function blocks(out: string): string[][] {
  return out
    .trim()
    .split('\n\n')
    .map((b) => b.split('\n'));
}

describe('trove scope test', () => {
  it('judges each URL and explains it, exit 0', async () => {
    const r = await trove(
      'scope',
      'test',
      'https://example.com/docs/a.html',
      'https://example.com/blog/',
      '--seed',
      'https://example.com/docs/',
    );
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const [a, b] = blocks(r.out);
    expect(a![0]).toBe('URL https://example.com/docs/a.html (hops "")');
    expect(a![1]).toBe('ACCEPT');
    expect(a![2]).toBe('ACCEPT by scope-prefix: under http://(com,example,)/docs/ (seed https://example.com/docs/) (rule 2)');
    expect(a![3]).toBe('trace:');
    expect(b![1]).toBe('REJECT');
    expect(b![2]).toBe('REJECT by reject-all: nothing has accepted this URL yet (rule 1)');
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
    expect(blocks(deep.out)[0]![2]).toBe('REJECT by max-hops: 3 hops (LLL) > maxHops 2 (rule 4)');
  });

  it('accepts several seeds and ends an option list with --', async () => {
    const r = await trove('scope', 'test', '--seed', 'https://a.org/x/', 'https://b.org/', '--', 'https://b.org/anything', 'https://a.org/x/y');
    expect(r.code).toBe(0);
    expect(blocks(r.out).map((b) => b[1])).toEqual(['ACCEPT', 'ACCEPT']);
  });

  it('prints the rule sequence with --show-rules', async () => {
    const r = await trove('scope', 'test', 'https://example.com/', '--seed', 'https://example.com/', '--show-rules');
    const first = blocks(r.out)[0]!;
    expect(first[0]).toBe('rules:');
    expect(first[1]).toBe('  1. reject-all: REJECT every URL unless a later rule accepts it');
    expect(first.length).toBe(12);
  });

  it('judges a non-http URL (REJECT by scheme) without failing', async () => {
    const r = await trove('scope', 'test', 'mailto:a@example.com', '--seed', 'https://example.com/');
    expect(r.code).toBe(0);
    expect(blocks(r.out)[0]![2]).toBe('REJECT by scheme: scheme mailto is not http or https (rule 11)');
  });

  it('reports an invalid URL on stderr, still judges the others, and exits 2', async () => {
    const r = await trove('scope', 'test', 'http://[oops', 'https://example.com/a', '--seed', 'https://example.com/');
    expect(r.code).toBe(2);
    expect(r.err).toContain('Not a valid URL: http://[oops');
    expect(r.err).toContain('1 of 2 URLs could not be judged');
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

  it('refuses a bad preset or number the way commander does (exit 1)', async () => {
    expect((await trove('scope', 'test', 'https://e.org/', '--seed', 'https://e.org/', '--scope', 'site')).code).toBe(1);
    expect((await trove('scope', 'test', 'https://e.org/', '--seed', 'https://e.org/', '--max-hops', 'ten')).code).toBe(1);
  });

  it('needs seeds, from --seed or a --config (exit 2, like every bad setting)', async () => {
    expect((await trove('scope', 'test', 'https://e.org/')).code).toBe(2);
  });
});
