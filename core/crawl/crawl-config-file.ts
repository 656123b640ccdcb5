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
import { defaultSettings, type CrawlSettings } from '../api/settings.ts';
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
  const defaults = defaultSettings() as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (!(key in defaults) && key !== 'robotsFile') throw invalid(file, `unknown setting "${key}"`, { setting: key });
    const want = defaults[key];
    const ok =
      key === 'robotsFile'
        ? typeof value === 'string'
        : Array.isArray(want)
          ? Array.isArray(value)
          : typeof value === typeof want;
    if (!ok) throw invalid(file, `"${key}" should be ${Array.isArray(want) ? 'a list' : `a ${typeof want}`}`, { setting: key });
    out[key] = value;
  }
  // Paths in the file are relative to the file, as people write them.
  const base = path.dirname(path.resolve(file));
  if (typeof out.robotsFile === 'string') out.robotsFile = path.resolve(base, out.robotsFile);
  if (Array.isArray(out.dedupFrom)) out.dedupFrom = (out.dedupFrom as unknown[]).map((p) => path.resolve(base, String(p)));
  return out as Partial<CrawlSettings>;
}
