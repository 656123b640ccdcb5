/**
 * A crawl config file (`--config crawl.yaml` or `.json`): any CrawlSettings field under its own
 * name, plus what has no flag — extra scope rules (`scopeRules`, see ExtraRuleConfig: on-host /
 * on-domain lists, regex include, hops-path regex, file-type presets, and MIME / content-length
 * rules applied after fetch) and per-host `overrides`. Flags given on the command line win over
 * the file. The file is hostile input like any other: unknown keys, wrong types and YAML aliases
 * bombs are refused with a clear error and the line they are on where the parser knows it.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Yaml from 'yaml';
import type { CrawlSettings } from '../api/settings.ts';
import { SETTING_ROWS, type SettingRow } from '../api/settings-registry.ts';
import { TroveError } from '../errors.ts';

const MAX_BYTES = 4 * 1024 * 1024;

// The YAML parser loads when a YAML file is read, not with this module: every `trove` command
// imports it (through the crawl and scope options), and loading yaml costs ~2 MiB RSS in a crawl
// process (bench/touch-rss-probe.ts) that few crawls use. require(), not import(), so that
// readCrawlConfig stays synchronous for its callers; this module is the only user of yaml.
const requireYaml = () => createRequire(import.meta.url)('yaml') as typeof Yaml;

function invalid(file: string, message: string, details: Record<string, unknown> = {}): TroveError {
  return new TroveError('SETTINGS_INVALID', `${file}: ${message}`, { file, ...details });
}

/** What a config file's value for a top-level key must be, from the registry; null when it is no setting. */
function kindOf(key: string): 'number' | 'string' | 'boolean' | 'object' | 'list' | null {
  const rows = (SETTING_ROWS as readonly SettingRow[]).filter((r) => r.key === key || r.key.startsWith(`${key}.`));
  const row = rows[0];
  if (!row) return null;
  if (row.key !== key) return 'object'; // a group: browser
  if (row.type === 'list' || row.type === 'structured') return 'list';
  return row.type === 'choice' ? 'string' : row.type;
}

export function readCrawlConfig(file: string): Partial<CrawlSettings> {
  let text: string;
  try {
    const st = fs.statSync(file);
    if (st.size > MAX_BYTES) throw invalid(file, `larger than ${MAX_BYTES} bytes; a crawl config is a small file`);
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof TroveError) throw err;
    throw invalid(file, `cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let data: unknown;
  const yaml = /\.json$/i.test(file) ? null : requireYaml();
  try {
    data = yaml ? yaml.parse(text, { maxAliasCount: 100, uniqueKeys: true }) : JSON.parse(text);
  } catch (err) {
    const line = yaml && err instanceof yaml.YAMLParseError ? err.linePos?.[0]?.line : undefined;
    throw invalid(file, `not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`, line ? { line } : {});
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw invalid(file, 'the top level must be a mapping of settings');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const want = kindOf(key);
    if (!want) throw invalid(file, `unknown setting "${key}"`, { setting: key });
    const ok = want === 'list' ? Array.isArray(value) : typeof value === want && !Array.isArray(value);
    if (!ok) throw invalid(file, `"${key}" should be ${want === 'list' ? 'a list' : `a ${want}`}`, { setting: key });
    out[key] = value;
  }
  // Paths in the file are relative to the file, as people write them (the rows marked `path`).
  const base = path.dirname(path.resolve(file));
  for (const row of SETTING_ROWS as readonly SettingRow[]) {
    if (!('path' in row) || !row.path || row.key.includes('.')) continue;
    const v = out[row.key];
    if (typeof v === 'string') out[row.key] = path.resolve(base, v);
    else if (Array.isArray(v)) out[row.key] = v.map((p) => path.resolve(base, String(p)));
  }
  return out as Partial<CrawlSettings>;
}
