/**
 * The CLI's one error form (`trove <command>: <message> [CODE]`, plus a pointer at --help for
 * usage errors) and one exit-code mapping, for the crawl commands: a bad --out is exit 2 with a
 * sentence, never errno text; a resume of a directory without a crawl is a usage error; a bad
 * number is named with the command it was given to.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../core/cli/main.ts';
import { exitCodeFor } from '../../core/api/error-codes.ts';
import { formatCliError } from '../../core/cli/cli-errors.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-cli-errors-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function trove(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

describe('CLI errors', () => {
  it('maps codes to exit status in one place', () => {
    expect(exitCodeFor('CLI_USAGE')).toBe(2);
    expect(exitCodeFor('SETTINGS_INVALID')).toBe(2);
    expect(exitCodeFor('URL_INVALID')).toBe(2);
    expect(exitCodeFor('SCOPE_BAD_REGEX')).toBe(2);
    expect(exitCodeFor('CRAWL_OUT_INVALID')).toBe(2);
    expect(exitCodeFor('commander.unknownOption')).toBe(2);
    expect(exitCodeFor('commander.helpDisplayed')).toBe(0);
    expect(exitCodeFor('WARC_WRITE_FAILED')).toBe(1);
    expect(formatCliError('get', 'not archived', 'CAPTURE_NO_RECORD')).toBe('trove get: not archived [CAPTURE_NO_RECORD]\n');
  });

  it('lists every settings problem, one a line, each named by its flag (the one validation path the app uses too)', async () => {
    const out = path.join(tmp, 'never-written');
    const r = await trove('crawl', 'http://127.0.0.1:9/', '--min-delay-ms', '500', '--max-delay-ms', '100', '--include', '(', '--override', 'host=not a host!!,min-delay-ms=5', '--out', out);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toEqual([
      'trove crawl: 3 settings are not valid [SETTINGS_INVALID]',
      '  --max-delay-ms: the maximum delay (100 ms) is below the minimum (500 ms)',
      '  --override #1 host: "not a host!!" is not a host name',
      '  --include: line 1: /(/ is not a valid regular expression (unterminated group)',
      "Try 'trove crawl --help'.",
      '',
    ]);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('refuses an --out that is a file, or under a file, with a sentence (exit 2), writing nothing', async () => {
    const file = path.join(tmp, 'a-file');
    fs.writeFileSync(file, 'x');
    const r = await trove('crawl', 'http://127.0.0.1:9/', '--out', file);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`trove crawl: --out ${file}: is a file, not a directory (give a new or existing crawl directory) [CRAWL_OUT_INVALID]\nTry 'trove crawl --help'.\n`);
    const under = await trove('crawl', '--seed', 'http://127.0.0.1:9/', '--out', path.join(file, 'sub'));
    expect(under.code).toBe(2);
    expect(under.err).toMatch(/^trove crawl: --out .*: .*a-file is a file, so no directory can be made under it \[CRAWL_OUT_INVALID\]\n/);
    expect(fs.readFileSync(file, 'utf8')).toBe('x');
  });

  it.skipIf(process.getuid?.() === 0)('refuses an --out it cannot write (exit 2, a sentence)', async () => {
    const locked = path.join(tmp, 'locked');
    fs.mkdirSync(locked, { mode: 0o500 });
    const r = await trove('crawl', 'http://127.0.0.1:9/', '--out', path.join(locked, 'crawl'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot create it: no permission to write in .*locked \[CRAWL_OUT_INVALID\]/);
  });

  it('names the command in errors of its option values and of its start', async () => {
    const bad = await trove('crawl', 'http://127.0.0.1:9/', '--out', path.join(tmp, 'c'), '--limit-pages', 'ten');
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(`trove crawl: --limit-pages expects a whole number ≥ 0, not "ten" [SETTINGS_INVALID]\nTry 'trove crawl --help'.\n`);
    const none = await trove('resume', path.join(tmp, 'nothing-here'));
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^trove resume: no crawl in .*nothing-here \(crawl\.sqlite is missing\) \[CRAWL_NOT_FOUND\]\nTry 'trove resume --help'\.\n$/);
    const missing = await trove('crawl', 'http://127.0.0.1:9/');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^trove crawl: required option '--out <dir>' not specified \[CLI_USAGE\]\n/);
  });
});
