/**
 * The settings registry is the one home of every crawl setting (issue 32). Walks its rows:
 * each has a flag, a label and help, and a default its own checks accept; `trove crawl --help`
 * states each real default, in the setting's unit, so that parsing it gives the default back;
 * and nothing defines a setting outside the registry (the defaults, the payload validator, the
 * number rules and the CLI mapping all come from the rows, and the files that read settings
 * generically hold no per-key list).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { SETTING_ROWS, settingRow, type SettingRow } from '../../core/api/settings-registry.ts';
import { defaultSettings } from '../../core/api/settings.ts';
import { settingsPatch, SETTINGS_FIELDS } from '../../core/api/settings-payload.ts';
import { check } from '../../core/api/validate.ts';
import { FIELD_UNITS, formatInUnit, fromFieldUnit, parseInUnit } from '../../core/api/setting-units.ts';
import { NUMBER_RULES, rowProblem, settingsProblems } from '../../core/crawl/validate-settings.ts';
import { addCrawlOptions, helpDefault, settingsFromOptions } from '../../core/cli/crawl-options.ts';
import { registerScopeCommand } from '../../core/cli/scope-command.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROWS = SETTING_ROWS as readonly SettingRow[];

/** A value by its key, inside its group for `browser.tabs`. */
function at(settings: object, key: string): unknown {
  const [top, sub] = key.split('.') as [string, string | undefined];
  const v = (settings as Record<string, unknown>)[top];
  return sub === undefined ? v : (v as Record<string, unknown> | undefined)?.[sub];
}

function parse(args: string[], command: 'crawl' | 'resume' = 'crawl'): Record<string, unknown> {
  const cmd = addCrawlOptions(new Command().exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} }), command);
  cmd.parse(args, { from: 'user' });
  return cmd.opts();
}

describe('every row of the settings registry', () => {
  it.each(ROWS.map((r) => [r.key, r] as const))('%s: a flag, a label, help, and a default its checks accept', (_key, row) => {
    expect(row.cli.flag).toMatch(/^--[a-z][a-z-]*$/);
    expect(row.cli.help.length).toBeGreaterThan(5);
    expect(row.label.length).toBeGreaterThan(1);
    expect(row.help.length).toBeGreaterThan(10);
    if (row.optional) {
      expect(row.default).toBeUndefined();
      return;
    }
    expect(rowProblem(row, row.default)).toBeNull();
    if (row.type === 'number') {
      expect(row.min).toBeLessThanOrEqual(row.default);
      expect(row.max).toBeGreaterThanOrEqual(row.default);
      // A field shows its default as a round number of its unit (1e9 bytes is 1000 MB, not 953.67).
      const scale = FIELD_UNITS[row.field ?? ''];
      expect(Number.isInteger((row.default / scale) * 100), `${row.key} in ${row.field}`).toBe(true);
      expect(fromFieldUnit(row.default / scale, row.field ?? '', row.whole)).toBe(row.default);
    }
  });

  it('the defaults together pass settingsProblems and the app\'s payload validator', () => {
    expect(settingsProblems({ ...defaultSettings(), seeds: ['http://example.org/'] }, { requireSeeds: true })).toEqual([]);
    const fromApp = Object.fromEntries(Object.entries(defaultSettings()).filter(([k]) => (SETTINGS_FIELDS as string[]).includes(k)));
    expect(check(settingsPatch(), fromApp)).toMatchObject({ ok: true });
  });

  it('flags and labels are unique', () => {
    const flags = ROWS.map((r) => r.cli.flag);
    expect(new Set(flags).size).toBe(flags.length);
    const labels = ROWS.map((r) => `${r.section} ${r.label}`);
    expect(new Set(labels).size).toBe(labels.length);
  });
});

describe('trove crawl --help', () => {
  const options = addCrawlOptions(new Command()).options;

  it.each(ROWS.map((r) => [r.cli.flag, r] as const))('%s states the real default, and reading it back gives that default', (flag, row) => {
    const option = options.find((o) => o.long === flag);
    expect(option, flag).toBeDefined();
    const stated = /\(default (.+)\)$/.exec(option!.description)?.[1];
    const shown = helpDefault(row);
    if (shown === null) {
      expect(stated, flag).toBeUndefined();
      return;
    }
    expect(stated).toBe(shown);
    if (row.cli.defaultText) return; // said in words: the name defaults to the --out folder's
    const text = row.type === 'number' && row.default === 0 ? '0' : shown;
    const given = settingsFromOptions(parse([flag, text]), []);
    expect(at(given, row.key), `${flag} ${text}`).toEqual(at(defaultSettings(), row.key));
  });

  it('units are read as people write them, and the help\'s own forms round-trip', () => {
    expect(settingsFromOptions(parse(['--max-body-bytes', '1GiB', '--warc-max-bytes', '1GB', '--fetch-timeout-s', '2min', '--min-delay-ms', '1.5s', '--limit-time', '1h']), [])).toEqual({
      maxBodyBytes: 1024 ** 3,
      warcMaxBytes: 1e9,
      fetchTimeoutS: 120,
      minDelayMs: 1500,
      limitTimeS: 3600,
    });
    for (const [n, unit] of [[1e9, 'bytes'], [1024 ** 3, 'bytes'], [256 * 1024, 'bytes'], [86400, 'seconds'], [300, 'seconds'], [0.5, 'seconds'], [3000, 'milliseconds'], [250, 'milliseconds']] as const) {
      const p = parseInUnit(formatInUnit(n, unit), unit, false);
      expect(p, `${n} ${unit} as ${formatInUnit(n, unit)}`).toEqual({ value: n });
    }
    expect(() => parse(['--limit-time', '1.5s'])).toThrow(expect.objectContaining({ code: 'SETTINGS_INVALID', message: '--limit-time expects a whole number of seconds, not "1.5s"' }));
  });

  it('--max-retries says how to turn retries off and set the first wait', () => {
    const help = addCrawlOptions(new Command()).helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain('--max-retries 0 turns retries off; --retry-delay-s sets the first wait');
  });

  it('--limit-time says paused time does not count; --limit-pages says how to fetch the pages it held back', () => {
    const help = addCrawlOptions(new Command()).helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain('--limit-time <s> stop after this much running time (paused time does not count)');
    expect(help).toContain('pages held back stay queued for `trove resume --limit-pages <higher>`');
  });

  it('resume offers every setting a resume may change, and no other', () => {
    const resume = addCrawlOptions(new Command(), 'resume').options.map((o) => o.long);
    for (const row of ROWS) expect(resume.includes(row.cli.flag), row.cli.flag).toBe(row.resume && !row.cli.crawlOnly);
  });
});

describe('trove scope test --help', () => {
  it('offers every Scope setting, with the flag, help and default trove crawl gives it', () => {
    const program = new Command();
    registerScopeCommand(program);
    const test = program.commands.find((c) => c.name() === 'scope')!.commands.find((c) => c.name() === 'test')!;
    const crawl = addCrawlOptions(new Command()).options;
    const scopeRows = ROWS.filter((r) => r.section === 'Scope');
    expect(scopeRows.length).toBeGreaterThan(5);
    for (const row of scopeRows) {
      const option = test.options.find((o) => o.long === row.cli.flag);
      expect(option, row.cli.flag).toBeDefined();
      const same = crawl.find((o) => o.long === row.cli.flag)!;
      expect(option!.flags).toBe(same.flags);
      expect(option!.description).toBe(same.description);
      expect(option!.argChoices).toEqual(same.argChoices);
    }
  });
});

describe('settings defined outside the registry', () => {
  it('the defaults, the payload fields and the number rules are the rows\' keys, no more and no fewer', () => {
    const flat = (o: object, prefix = ''): string[] =>
      Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? flat(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
    expect(flat(defaultSettings()).sort()).toEqual(ROWS.filter((r) => !r.optional).map((r) => r.key).sort());
    const topOf = (k: string) => k.split('.')[0]!;
    expect([...SETTINGS_FIELDS].sort()).toEqual([...new Set(ROWS.filter((r) => r.app === true).map((r) => topOf(r.key)))].sort());
    expect(Object.keys(NUMBER_RULES).sort()).toEqual(ROWS.filter((r) => r.type === 'number' && !r.key.includes('.')).map((r) => r.key).sort());
  });

  it('the code that handles every setting alike names none of them: 0 settings defined outside the registry', () => {
    // A quoted key or flag of a setting in these files would be a second, hand-kept list.
    const GENERIC = [
      'core/api/settings.ts',
      'core/api/settings-payload.ts',
      'core/crawl/validate-settings.ts',
      'core/crawl/crawl-config-file.ts',
      'core/cli/crawl-options.ts',
      'core/cli/scope-command.ts',
      'core/cli/cli-errors.ts',
      'renderer/src/lib/setting-fields.ts',
      'renderer/src/lib/new-crawl-state.svelte.ts',
      'renderer/src/screens/monitor/ResumeLimitsDialog.svelte',
      'renderer/src/components/NumberField.svelte',
    ];
    const names = new Set(ROWS.flatMap((r) => [r.key, r.cli.flag]));
    const outside: string[] = [];
    for (const file of GENERIC) {
      // Comments may name settings (as examples), and a command its own name (`trove scope`); code may not.
      const src = fs
        .readFileSync(path.join(ROOT, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
        .replace(/\.command\((['"`])[a-z]+\1\)/g, '.command()');
      for (const m of src.matchAll(/(['"`])([A-Za-z.-]+)\1/g)) if (names.has(m[2]!)) outside.push(`${file}: ${m[0]}`);
    }
    console.log(`settings defined outside the registry: ${outside.length}`);
    expect(outside).toEqual([]);
  });

  it('a key the registry does not know is refused by the app, the config file and the checks alike', () => {
    expect(settingRow('maxPagesPerHost')).toBeUndefined();
    expect(check(settingsPatch(), { maxPagesPerHost: 5 })).toMatchObject({ ok: false, error: { message: /unknown setting/ } });
  });
});
