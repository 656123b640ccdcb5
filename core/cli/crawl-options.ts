/**
 * The crawl flags of `trove crawl` and `trove resume`, and their mapping onto CrawlSettings,
 * both read from the settings registry (core/api/settings-registry.ts): each row's flag, help
 * with the real default in its unit, and parser (`1GiB`, `30s`); `resume` offers the rows a
 * resume may change; `trove scope test` takes the Scope rows' options from here too. Only flags
 * the user actually gave end up in the partial settings, so a resumed crawl keeps its stored
 * values for everything else.
 */
import fs from 'node:fs';
import { Option, type Command } from 'commander';
import { HERITRIX_RETRIES, type CrawlSettings, type HostOverride } from '../api/settings.ts';
import { settingRow, SETTING_ROWS, type SettingRow } from '../api/settings-registry.ts';
import { formatInUnit, parseBytes as parseByteSize, parseInUnit } from '../api/setting-units.ts';
import { TroveError } from '../errors.ts';
import { readCrawlConfig } from '../crawl/crawl-config-file.ts';
import { normalizeUrl } from '../scope/normalize-url.ts';

/** Sizes like 1GB, 500MiB, 1e9, 1024. */
export function parseBytes(v: string): number {
  const p = parseByteSize(v);
  if ('problem' in p) throw new TroveError('SETTINGS_INVALID', p.problem);
  return p.value;
}

function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

/** A flag's text as its setting's value, by the row's type and unit; SETTINGS_INVALID naming the flag. */
function parseValue(row: SettingRow, v: string, flag = row.cli.flag): unknown {
  if (row.type === 'number') {
    const p = parseInUnit(v, row.unit, row.whole);
    if ('problem' in p) throw new TroveError('SETTINGS_INVALID', p.problem.startsWith('expects') ? `${flag} ${p.problem}` : `${flag}: ${p.problem}`);
    return p.value;
  }
  if (row.type === 'structured' && row.shape === 'host-override') return parseOverride(v);
  if (row.type === 'structured') {
    try {
      return JSON.parse(v) as unknown;
    } catch (err) {
      throw new TroveError('SETTINGS_INVALID', `${flag}: not JSON: ${(err as Error).message}`);
    }
  }
  if (row.type === 'list' && row.cli.commaList) return v.split(',').map((a) => a.trim()).filter(Boolean);
  return v;
}

/** `host=example.org,min-delay-ms=500,per-host=2` → HostOverride: each key is the flag of a setting the override row names. */
export function parseOverride(v: string): HostOverride {
  const overrides = (SETTING_ROWS as readonly SettingRow[]).find((r) => r.type === 'structured' && r.shape === 'host-override');
  const fields = (overrides as { fields?: readonly string[] } | undefined)?.fields ?? [];
  const o: Record<string, unknown> = {};
  for (const part of v.split(',')) {
    const [k, val] = part.split('=').map((s) => s.trim());
    if (!k || val === undefined) throw new TroveError('SETTINGS_INVALID', `--override: expected key=value pairs, got ${JSON.stringify(part)}`);
    if (k === 'host' || k === 'domain') {
      o[k] = val;
      continue;
    }
    const row = fields.map((f) => settingRow(f)!).find((r) => r.cli.flag === `--${k}`);
    if (!row) throw new TroveError('SETTINGS_INVALID', `--override: unknown key ${JSON.stringify(k)}`);
    o[row.key] = parseValue(row, val, `--override ${k}`);
  }
  if (!o.host && !o.domain) throw new TroveError('SETTINGS_INVALID', '--override needs host=… or domain=…');
  return o as HostOverride;
}

/** A row's default as its help says it, in the row's unit (`1GiB`, `5min`), or null when there is none worth saying. */
export function helpDefault(row: SettingRow): string | null {
  if (row.cli.defaultText) return row.cli.defaultText;
  const d = row.default;
  if (d === undefined || typeof d === 'boolean' || Array.isArray(d) || d === '') return null;
  if (row.type === 'number' && typeof d === 'number') return d === 0 && row.zero ? `0 = ${row.zero}` : formatInUnit(d, row.unit);
  return String(d);
}

/** The commander option of a setting's row: its flag, help with the default, choices and parser (`trove scope test` shares the Scope rows'). */
export function settingOption(row: SettingRow): Option {
  const takesValue = row.type !== 'boolean';
  const def = helpDefault(row);
  const o = new Option(takesValue ? `${row.cli.flag} ${row.cli.arg ?? '<value>'}` : row.cli.flag, def === null ? row.cli.help : `${row.cli.help} (default ${def})`);
  if (row.type === 'choice') o.choices(row.choices);
  else if (row.cli.repeatable) o.argParser((v: string, prev: unknown[] = []) => [...prev, parseValue(row, v)]);
  else if (takesValue) o.argParser((v: string) => parseValue(row, v));
  return o;
}

/** Which command the flags are for: `resume` leaves out the rows a resume may not change. */
export type CrawlFlagsFor = 'crawl' | 'resume';

function rowsFor(command: CrawlFlagsFor): SettingRow[] {
  return (SETTING_ROWS as readonly SettingRow[]).filter((r) => command === 'crawl' || (r.resume && !r.cli.crawlOnly));
}

/** The commander attribute a row's value arrives under (`--robots-ttl` → robotsTtl). */
export function attributeOf(row: SettingRow): string {
  return new Option(row.cli.flag).attributeName();
}

/** Every setting's flag (from the registry), plus the flags that are not one setting: a config file, a seeds file, presets. */
export function addCrawlOptions(cmd: Command, command: CrawlFlagsFor = 'crawl'): Command {
  cmd
    .option('--config <file>', 'crawl config (JSON or YAML): any setting by name, plus scopeRules and overrides; flags win')
    .option('--seeds-file <file>', 'read seeds from a file, one URL per line (# comments allowed)')
    .addOption(new Option('--retry-preset <preset>', 'heritrix: 30 tries, 900 s apart, for long crawls').choices(['heritrix']));
  // Listed in the help under their section's heading ("Scope:", "Limits:"), in the registry's order.
  for (const row of rowsFor(command)) {
    cmd.addOption(settingOption(row).helpGroup(`${row.section}:`));
    if (row.cli.clear) cmd.addOption(new Option(`--no-${row.cli.flag.slice(2)}`, row.cli.clear).helpGroup(`${row.section}:`));
  }
  return cmd.option('--no-progress', 'no progress bar (plain log lines)');
}

type Opts = Record<string, unknown>;

/**
 * The settings the flags give, on top of the config file's: each row whose flag was given, by
 * the registry (a group such as browser stored whole), and the seeds of the arguments (`seeds`)
 * and of --seeds-file after those of --seed.
 */
export function settingsFromOptions(opts: Opts, seeds: string[]): Partial<CrawlSettings> {
  const s: Partial<CrawlSettings> = typeof opts.config === 'string' ? readCrawlConfig(opts.config) : {};
  const fileSeeds: string[] = [];
  if (typeof opts.seedsFile === 'string') {
    let text: string;
    try {
      text = fs.readFileSync(opts.seedsFile, 'utf8');
    } catch (err) {
      throw new TroveError('SETTINGS_INVALID', `cannot read --seeds-file ${opts.seedsFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    text.split(/\r?\n/).forEach((line, i) => {
      const t = line.replace(/#.*$/, '').trim();
      if (!t) return;
      // Name the line: a seeds file of thousands of URLs is otherwise hard to fix.
      try {
        normalizeUrl(t);
      } catch (err) {
        throw new TroveError('SETTINGS_INVALID', `--seeds-file ${opts.seedsFile} line ${i + 1}: ${(err as Error).message}`, { file: opts.seedsFile, line: i + 1 });
      }
      fileSeeds.push(t);
    });
  }
  if (opts.retryPreset === 'heritrix') Object.assign(s, HERITRIX_RETRIES);
  const given = (SETTING_ROWS as readonly SettingRow[]).filter((r) => opts[attributeOf(r)] !== undefined);
  // A choice that sets others (a politeness preset) first, so a flag of its own wins over the preset.
  for (const row of given) if (row.type === 'choice' && row.sets) Object.assign(s, row.sets[opts[attributeOf(row)] as string]);
  const out = s as Record<string, unknown>;
  for (const row of given) {
    let value = opts[attributeOf(row)];
    // --no-limit-pages and co.: the setting cleared to 0 (none), e.g. to resume a crawl that hit it.
    if (value === false && row.cli.clear) value = 0;
    const [top, sub] = row.key.split('.') as [string, string | undefined];
    if (sub === undefined) {
      out[top] = row.cli.append ? [...((out[top] as unknown[] | undefined) ?? []), ...(value as unknown[])] : value;
      continue;
    }
    // A group (browser) is stored whole: its defaults, then the config file's, then the flags.
    out[top] = { ...groupDefaults(top), ...(out[top] as object | undefined), [sub]: value };
    if (row.cli.implies) out[top] = { ...(out[top] as object), [row.cli.implies.key.split('.')[1]!]: row.cli.implies.value };
  }
  // Seeds add up: the config file's, --seed, the arguments, then the seeds file's.
  if (seeds.length || fileSeeds.length) s.seeds = [...(s.seeds ?? []), ...seeds, ...fileSeeds];
  return s;
}

/** The defaults of a nested group's rows (browser.enabled, browser.tabs → { enabled, tabs }). */
function groupDefaults(top: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of SETTING_ROWS as readonly SettingRow[]) if (r.key.startsWith(`${top}.`) && r.default !== undefined) out[r.key.slice(top.length + 1)] = r.default;
  return out;
}
