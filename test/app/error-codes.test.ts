/**
 * The error catalogue: each code listed once, every listed code raised somewhere in core/ (no
 * dead entries), and the one code → exit status mapping of `trove` pinned code by code, so a
 * change of exit status is a deliberate edit of this table.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CRAWL_LOG_CODES, ERROR_CODES, exitCodeFor, isErrorCode, isUsageCode, type ErrorCode } from '../../core/api/error-codes.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(rel));
    else if (e.name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

// Every code whose exit status is 2; every other catalogue code exits 1.
const EXIT_2: Record<string, 'usage' | 'not done'> = {
  CLI_USAGE: 'usage',
  SETTINGS_INVALID: 'usage',
  CRAWL_OUT_INVALID: 'usage',
  CRAWL_NOT_FOUND: 'usage',
  SCHEDULE_INVALID: 'usage',
  ARCHIVE_NOT_FOUND: 'usage',
  ARCHIVE_NOT_A_DIRECTORY: 'usage',
  ROBOTS_AGENT_INVALID: 'usage',
  CAPTURE_BAD_TIMESTAMP: 'usage',
  EXPORT_BAD_FILTER: 'usage',
  QUERY_BAD_FILTER: 'usage',
  SCOPE_BAD_CANDIDATE: 'usage',
  SCOPE_BAD_HOPS_PATH: 'usage',
  SCOPE_BAD_REGEX: 'usage',
  SCOPE_BAD_RULE: 'usage',
  SCOPE_BAD_SETTING: 'usage',
  URL_INVALID: 'usage',
  URL_UNSUPPORTED_SCHEME: 'usage',
  PROFILE_BAD_NAME: 'usage',
  CRAWL_DIR_LOCKED: 'not done',
  WARC_OPEN_FAILED: 'not done',
  WACZ_OPEN_FAILED: 'not done',
  COOKIES_FILE_INVALID: 'not done',
  PROFILE_NOT_FOUND: 'not done',
};

describe('the error catalogue', () => {
  it('lists each code once, in the CODE_NAME form', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const code of ERROR_CODES) expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
  });

  it('has no entry that core/ (or the Electron gate) never raises or logs', () => {
    const text = [...sources('core'), ...sources('electron')]
      .filter((f) => !f.endsWith('error-codes.ts'))
      .map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8'))
      .join('\n');
    expect(ERROR_CODES.filter((code) => !text.includes(`'${code}'`))).toEqual([]);
    expect(CRAWL_LOG_CODES.filter((code) => !text.includes(`'${code}'`))).toEqual([]);
  });

  it('lists each crawl log event code once', () => {
    expect(new Set(CRAWL_LOG_CODES).size).toBe(CRAWL_LOG_CODES.length);
  });

  it('knows its codes at run time (for codes that crossed a worker or process boundary as text)', () => {
    expect(isErrorCode('SETTINGS_INVALID')).toBe(true);
    expect(isErrorCode('ENOENT')).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });
});

describe('exitCodeFor: the one code → exit status mapping of trove', () => {
  it('maps every catalogue code as the table says', () => {
    const got = Object.fromEntries(ERROR_CODES.map((c) => [c, exitCodeFor(c)]));
    const want = Object.fromEntries(ERROR_CODES.map((c) => [c, EXIT_2[c] ? 2 : 1]));
    expect(got).toEqual(want);
    for (const code of Object.keys(EXIT_2)) expect(isErrorCode(code), code).toBe(true);
  });

  it('points at --help only for usage codes', () => {
    for (const [code, kind] of Object.entries(EXIT_2)) expect(isUsageCode(code as ErrorCode), code).toBe(kind === 'usage');
  });

  it("maps commander's codes: help and version 0, anything else usage", () => {
    expect(exitCodeFor('commander.helpDisplayed')).toBe(0);
    expect(exitCodeFor('commander.version')).toBe(0);
    expect(exitCodeFor('commander.unknownOption')).toBe(2);
    expect(exitCodeFor('commander.missingArgument')).toBe(2);
  });
});
