/**
 * Which Chromium `trove crawl --browser` drives: --browser-path alone when given (a typo must not
 * pick another browser), then $TROVE_CHROMIUM, then the usual install paths; without one, an
 * error naming every path tried and how to install Chromium. Real files in a temp directory.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chromiumCandidates, findChromium } from '../../core/browser/find-chromium.ts';
import { isTroveError } from '../../core/errors.ts';
import { repoRoot } from '../helpers/corpus.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-find-chromium-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function exe(name: string): string {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, '#!/bin/sh\n');
  fs.chmodSync(p, 0o755);
  return p;
}

describe('findChromium', () => {
  it('takes --browser-path alone, and fails on it rather than picking another browser', () => {
    const mine = exe('my-chrome');
    expect(findChromium({ path: mine, env: { TROVE_CHROMIUM: exe('other') } })).toBe(mine);
    const missing = path.join(tmp, 'no-such-chrome');
    expect(chromiumCandidates({ path: missing })).toEqual([missing]);
    expect(() => findChromium({ path: missing, env: { PATH: tmp } })).toThrow(/no-such-chrome/);
  });

  it('then $TROVE_CHROMIUM, then the install paths and PATH', () => {
    const env = exe('env-chrome');
    expect(findChromium({ env: { TROVE_CHROMIUM: env, PATH: '' } })).toBe(env);
    const dir = fs.mkdtempSync(path.join(tmp, 'bin-'));
    const onPath = path.join(dir, 'chromium-browser');
    fs.writeFileSync(onPath, '#!/bin/sh\n');
    fs.chmodSync(onPath, 0o755);
    const list = chromiumCandidates({ env: { PATH: dir } });
    expect(list.indexOf('/usr/bin/chromium')).toBeLessThan(list.indexOf(onPath));
    expect(list).toContain(onPath);
  });

  it('says which paths it tried and how to install one, and skips files that cannot run', () => {
    const notExe = path.join(tmp, 'chromium');
    fs.writeFileSync(notExe, 'not a program');
    fs.chmodSync(notExe, 0o644);
    let err: unknown;
    try {
      findChromium({ path: notExe });
    } catch (e) {
      err = e;
    }
    expect(isTroveError(err, 'BROWSER_NOT_FOUND')).toBe(true);
    const message = (err as Error).message;
    expect(message).toContain(notExe);
    expect(message).toContain('apt install chromium');
    expect(message).toContain('--browser-path');
  });
});

describe('trove crawl --browser-path', () => {
  it('names the flag and exits 2 when the browser named does not exist, writing nothing', () => {
    const out = path.join(tmp, 'crawl-out');
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'trove.js'), 'crawl', 'http://127.0.0.1:9/', '--out', out, '--browser-path', path.join(tmp, 'nope')], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--browser-path: .*nope: no such file/);
    expect(fs.existsSync(out)).toBe(false);
  });
});
