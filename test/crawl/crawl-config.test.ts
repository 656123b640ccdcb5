/**
 * A crawl config file (--config, JSON or YAML): settings by name, extra scope rules that no flag
 * has (file types, regex, hops paths, and MIME / content-length after fetch), per-host
 * overrides; flags win over the file; a bad file is a clear error before anything is written.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.ts';

const bin = path.join(repoRoot, 'bin', 'trove.js');

/** The CLI in a child process, asynchronously: the fixture site lives in this process and must keep answering. */
function trove(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('trove crawl --config', () => {
  let site: FixtureSite;
  let root: string;
  beforeAll(async () => {
    site = await startFixtureSite();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-config-'));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('applies settings, extra scope rules and after-fetch rules from a YAML file; flags win', async () => {
    const config = path.join(root, 'crawl.yaml');
    fs.writeFileSync(
      config,
      `# a crawl config
name: from-config
seeds:
  - ${site.origin}/
delayFactor: 0
minDelayMs: 2000      # overridden by the flag below
maxDelayMs: 0
minFreeDiskBytes: 0
maxRetries: 0
scopeRules:
  - { type: file-type, presets: [images], decision: REJECT }
  - { type: regex, pattern: "/deep/", decision: REJECT }
  - { type: mime, pattern: "^text/css", decision: REJECT }
overrides:
  - { host: 127.0.0.1, perHost: 2 }
`,
    );
    const dir = path.join(root, 'crawl');
    const r = await trove(['crawl', '--config', config, '--out', dir, '--min-delay-ms', '0']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Crawl from-config finished \(frontier-empty\)/);
    const paths = site.requests.map((q) => q.path);
    expect(paths).not.toContain('/img/logo.png'); // file-type rule: never requested
    expect(paths).not.toContain('/deep/1.html'); // regex rule
    expect(paths).toContain('/style.css'); // fetched (its type is only known after fetch) ...
    const recs = await readWarcDir(path.join(dir, 'warcs'));
    expect(recs.some((x) => x.targetUri === `${site.origin}/style.css`)).toBe(false); // ... but not archived
    const log = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8');
    expect(log).toMatch(/-5000 .*\/style\.css .*after-fetch:mime/);
    const scopeLog = fs.readFileSync(path.join(dir, 'logs', 'scope.log'), 'utf8');
    expect(scopeLog).toMatch(/file-type .*\/img\/logo\.png/);
    expect(scopeLog).toMatch(/\/deep\/1\.html/);
  }, 60_000);

  it('refuses an unknown key, a wrong type or broken YAML, with exit 2 and nothing written', () => {
    const cases: [string, RegExp][] = [
      ['seeds: [http://x/]\nconcurency: 4\n', /unknown setting "concurency"/],
      ['seeds: [http://x/]\nconcurrency: lots\n', /"concurrency" should be a number/],
      ['seeds: [http://x/\n  - : :\n', /not valid YAML/],
      ['seeds: [http://x/]\nscopeRules:\n  - { type: regex, pattern: "(", decision: REJECT }\n', /regex|pattern/i],
    ];
    for (const [i, [text, why]] of cases.entries()) {
      const config = path.join(root, `bad-${i}.yaml`);
      fs.writeFileSync(config, text);
      const dir = path.join(root, `bad-crawl-${i}`);
      const r = spawnSync(process.execPath, [bin, 'crawl', '--config', config, '--out', dir], { encoding: 'utf8' });
      expect(r.status, text).toBe(2);
      expect(r.stderr, text).toMatch(why);
      expect(fs.existsSync(dir), text).toBe(false);
    }
  });

  it('lets trove scope test judge URLs by a config file, extra rules included; flags win', () => {
    const config = path.join(root, 'scope.yaml');
    fs.writeFileSync(config, 'seeds: [http://example.org/docs/]\nmaxHops: 3\nscopeRules:\n  - { type: file-type, presets: [images], decision: REJECT }\n');
    const img = spawnSync(process.execPath, [bin, 'scope', 'test', '--config', config, 'http://example.org/docs/a.png', '--hops', 'L'], { encoding: 'utf8' });
    expect(img.status, img.stderr).toBe(1); // rejected
    expect(img.stdout).toMatch(/^REJECT/m);
    expect(img.stdout).toMatch(/file-type/);
    const page = spawnSync(process.execPath, [bin, 'scope', 'test', '--config', config, 'http://example.org/docs/a.html', '--hops', 'LLLL'], { encoding: 'utf8' });
    expect(page.stdout).toMatch(/^REJECT/m); // the file's maxHops 3
    const flag = spawnSync(process.execPath, [bin, 'scope', 'test', '--config', config, 'http://example.org/docs/a.html', '--hops', 'LLLL', '--max-hops', '10'], { encoding: 'utf8' });
    expect(flag.stdout).toMatch(/^ACCEPT/m); // the flag wins
    expect(flag.status, flag.stderr).toBe(0);
  });
});
