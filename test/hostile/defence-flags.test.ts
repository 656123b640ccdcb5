/**
 * Every defence against a hostile server is a crawl flag with a sane default, lands in the
 * crawl's settings, and is written into the warcinfo record's `trove-settings`, so an archive
 * says which limits shaped it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings, type CrawlSettings } from '../../core/api/settings.ts';
import { addCrawlOptions, settingsFromOptions } from '../../core/cli/crawl-options.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { isTroveError } from '../../core/errors.ts';
import { startHostileServer, type HostileServer } from '../fixtures/hostile-server.ts';
import { runCrawl } from '../helpers/run-crawl.ts';

/** flag → [setting, default, a value to give, what it parses to]. */
const DEFENCES: [string, keyof CrawlSettings, number, string, number][] = [
  ['--connect-timeout-s', 'connectTimeoutS', 20, '7', 7],
  ['--headers-timeout-s', 'headersTimeoutS', 30, '8', 8],
  ['--idle-timeout-s', 'idleTimeoutS', 60, '9', 9],
  ['--fetch-timeout-s', 'fetchTimeoutS', 300, '10', 10],
  ['--max-body-bytes', 'maxBodyBytes', 1024 ** 3, '5MiB', 5 * 1024 * 1024],
  ['--max-header-bytes', 'maxHeaderBytes', 256 * 1024, '64KiB', 64 * 1024],
  ['--max-extract-bytes', 'maxExtractBytes', 32 * 1024 * 1024, '8MiB', 8 * 1024 * 1024],
  ['--max-links-per-document', 'maxLinksPerDocument', 20000, '500', 500],
  ['--max-url-length', 'maxUrlLength', 2083, '1000', 1000],
];

function parse(args: string[]): Record<string, unknown> {
  const cmd = addCrawlOptions(new Command().exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} }));
  cmd.parse(args, { from: 'user' });
  return cmd.opts();
}

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer();
});
afterAll(async () => {
  await hostile.close();
});

describe('defence flags', () => {
  it('have the documented defaults', () => {
    const d = defaultSettings();
    for (const [flag, key, def] of DEFENCES) expect(d[key], flag).toBe(def);
  });

  it('every one is a flag, shown in --help with its default, and maps onto its setting', () => {
    const help = addCrawlOptions(new Command()).helpInformation();
    for (const [flag] of DEFENCES) expect(help, flag).toContain(flag);
    const s = settingsFromOptions(parse(DEFENCES.flatMap(([flag, , , given]) => [flag, given])), []);
    for (const [flag, key, , , parsed] of DEFENCES) expect(s[key], flag).toBe(parsed);
    // Flags not given stay out of the partial settings (a resume keeps its stored values).
    expect(settingsFromOptions(parse([]), [])).toEqual({});
  });

  it('bad values are SETTINGS_INVALID', () => {
    expect(() => parse(['--max-links-per-document', 'many'])).toThrow(expect.objectContaining({ code: 'SETTINGS_INVALID', message: expect.stringMatching(/whole number/) }));
    expect(() => parse(['--max-extract-bytes', '8 parsecs'])).toThrow(expect.objectContaining({ code: 'SETTINGS_INVALID', message: expect.stringMatching(/not a size/) }));
    expect(() => parse(['--headers-timeout-s', '-1'])).toThrow(expect.objectContaining({ code: 'SETTINGS_INVALID' }));
  });

  it('a zero timeout or head cap is refused before the crawl directory is created', async () => {
    for (const key of ['connectTimeoutS', 'headersTimeoutS', 'idleTimeoutS', 'fetchTimeoutS', 'maxHeaderBytes'] as const) {
      const dir = path.join(os.tmpdir(), `trove-zero-${key}-${process.pid}`);
      const err = await startCrawl({ dir, settings: { seeds: [`${hostile.origin}/ok`], [key]: 0 } }).catch((e: unknown) => e);
      expect(isTroveError(err, 'SETTINGS_INVALID'), key).toBe(true);
      expect(fs.existsSync(dir), key).toBe(false);
    }
  });

  it('the values in force are written into warcinfo trove-settings', async () => {
    const given = settingsFromOptions(parse(DEFENCES.flatMap(([flag, , , value]) => [flag, value])), [`${hostile.origin}/ok`]);
    const run = await runCrawl({ ...given, maxHops: 0 });
    try {
      expect(run.line(`${hostile.origin}/ok`)?.status).toBe(200);
      const info = (await run.records()).find((r) => r.type === 'warcinfo')!;
      const fields = info.payload.toString('utf8');
      const json = /^trove-settings: (.*)$/m.exec(fields)?.[1];
      const stored = JSON.parse(json!) as CrawlSettings;
      for (const [flag, key, , , parsed] of DEFENCES) expect(stored[key], flag).toBe(parsed);
    } finally {
      run.cleanup();
    }
  });
});
