import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerRobotsCommand } from '../../core/cli/robots-command.ts';
import { rfc9309Vectors } from './vectors.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'trove-robots-cli-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.exitCode = undefined;
});

/** Run `trove <args>` in process, the way bin/trove.js will, capturing both streams. */
async function trove(args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  let stdout = '';
  let stderr = '';
  const program = new Command('trove').exitOverride();
  program.configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  registerRobotsCommand(program, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } });
  process.exitCode = undefined;
  await program.parseAsync(args, { from: 'user' });
  const exitCode = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { stdout, stderr, exitCode };
}

function writeRobots(name: string, body: string | Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return file;
}

describe('trove robots test', () => {
  it('prints one verdict line per URL, then crawl-delay and sitemaps', async () => {
    const file = writeRobots(
      'site.txt',
      'Sitemap: http://example.com/a.xml\nUser-agent: *\nDisallow: /private\nCrawl-delay: 4\n\nUser-agent: Trove\nAllow: /private/trove\nDisallow: /private\nSitemap: http://example.com/b.xml\n',
    );
    const r = await trove(['robots', 'test', '--robots-file', file, '--agent', 'Trove', 'http://example.com/private/trove/1', 'http://example.com/private/x', 'http://example.com/']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        'allowed http://example.com/private/trove/1 Allow: /private/trove (line 7, group Trove)',
        'disallowed http://example.com/private/x Disallow: /private (line 8, group Trove)',
        'allowed http://example.com/ (no matching rule)',
        'crawl-delay: none',
        'sitemap: http://example.com/a.xml',
        'sitemap: http://example.com/b.xml',
        '',
      ].join('\n'),
    );
  });

  it('takes a full User-Agent string as --agent, and defaults to Trove', async () => {
    const file = writeRobots('delay.txt', 'User-agent: *\nCrawl-delay: 4\nDisallow: /tmp\n\nUser-agent: Googlebot\nDisallow: /\n');
    const google = await trove(['robots', 'test', '--robots-file', file, '--agent', 'Mozilla/5.0 (compatible; Googlebot/2.1)', 'http://h/x']);
    expect(google.stdout).toBe('disallowed http://h/x Disallow: / (line 6, group Googlebot)\ncrawl-delay: none\n');
    const dflt = await trove(['robots', 'test', '--robots-file', file, 'http://h/x']);
    expect(dflt.stdout).toBe('allowed http://h/x (no matching rule)\ncrawl-delay: 4\n');
  });

  it('missing file: a clear message on stderr, exit code 2, nothing on stdout', async () => {
    const missing = path.join(dir, 'nope.txt');
    const r = await trove(['robots', 'test', '--robots-file', missing, '--agent', 'x', 'http://h/']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`trove robots test: cannot read robots file ${missing} (ENOENT) [SETTINGS_INVALID]\nTry 'trove robots test --help'.\n`);
  });

  it('a directory as the file: exit code 2', async () => {
    const r = await trove(['robots', 'test', '--robots-file', dir, 'http://h/']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('EISDIR');
  });

  it('an agent with no product token: exit code 2', async () => {
    const file = writeRobots('any.txt', 'User-agent: *\n');
    const r = await trove(['robots', 'test', '--robots-file', file, '--agent', '(none)', 'http://h/']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('product token');
  });

  it('missing --robots-file or URLs: commander reports a usage error, no crash', async () => {
    await expect(trove(['robots', 'test', 'http://h/'])).rejects.toMatchObject({ code: 'commander.missingMandatoryOptionValue' });
    const file = writeRobots('empty.txt', '');
    await expect(trove(['robots', 'test', '--robots-file', file])).rejects.toMatchObject({ code: 'commander.missingArgument' });
  });

  it(`every rfc9309 vector gives the same answer through the command (${rfc9309Vectors.length} vectors)`, async () => {
    const wrong: string[] = [];
    for (const v of rfc9309Vectors) {
      const file = writeRobots(`${v.id}.txt`, v.robots);
      const r = await trove(['robots', 'test', '--robots-file', file, '--agent', v.agent, v.url]);
      const lines = r.stdout.split('\n');
      const verdict = lines[0]!.split(' ')[0];
      const urlField = lines[0]!.slice(verdict!.length + 1, verdict!.length + 1 + v.url.length);
      const ok =
        r.exitCode === 0 &&
        verdict === (v.allowed ? 'allowed' : 'disallowed') &&
        urlField === v.url &&
        (v.crawlDelay === undefined || lines[1] === `crawl-delay: ${v.crawlDelay ?? 'none'}`) &&
        (v.sitemaps === undefined || JSON.stringify(lines.filter((l) => l.startsWith('sitemap: ')).map((l) => l.slice(9))) === JSON.stringify(v.sitemaps));
      if (!ok) wrong.push(`${v.id}: ${r.stdout}${r.stderr}`);
    }
    expect(wrong).toEqual([]);
  });
});
