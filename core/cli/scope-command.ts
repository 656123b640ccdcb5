/**
 * `trove scope test`: whether URLs would be crawled for some seeds, and why; `--explain` adds
 * every rule's answer.
 *
 *   trove scope test --seed https://example.com/docs/ https://example.com/docs/a https://cdn.example.net/x.png --hops LE
 *
 * The scope flags (`--scope`, `--include`, `--max-hops`, `--scope-rule`…) are the rows of the
 * settings registry's Scope section, with the same help, defaults and parsers as `trove crawl`'s
 * (crawl-options.ts); a value that does not parse is a usage error here. `--seed`, `--include`
 * and `--exclude` take one value each and are repeated for more, so they never swallow a URL;
 * options and URLs may come in any order. Exit 0 when every URL is accepted, 1 when any is
 * rejected, 2 when a flag, URL, seed or pattern is invalid (the valid URLs are still judged).
 * Errors are printed by main.ts in the one CLI form.
 */
import { InvalidArgumentError, type Option } from 'commander';
import type { Command } from 'commander';
import { defaultSettings, type CrawlSettings } from '../api/settings.ts';
import { SETTING_ROWS, type SettingRow } from '../api/settings-registry.ts';
import { readCrawlConfig } from '../crawl/crawl-config-file.ts';
import { isTroveError, TroveError } from '../errors.ts';
import { CliExit, formatCliError } from './cli-errors.ts';
import { attributeOf, settingOption } from './crawl-options.ts';
import { buildScope, scopeSettingsFrom } from '../scope/decide-rules.ts';
import type { Scope } from '../scope/decide-rules.ts';
import { formatDecision } from '../scope/format-decision.ts';
import { normalizeUrl, parseUrl } from '../scope/normalize-url.ts';

/** The settings a scope is built from: the registry's Scope section. */
const SCOPE_ROWS = (SETTING_ROWS as readonly SettingRow[]).filter((r) => r.section === 'Scope');

type ScopeTestOptions = Record<string, unknown> & {
  seed?: string[];
  config?: string;
  via?: string;
  hops: string;
  showRules?: boolean;
  explain?: boolean;
};

/** A repeatable option's values, in order (commander calls this once per occurrence). */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A setting's option whose unparsable value is a usage error (exit 2, "Try --help"), as commander's own are. */
function usageOption(row: SettingRow): Option {
  const o = settingOption(row);
  const parse = o.parseArg;
  if (parse) {
    o.argParser((value: string, previous: unknown) => {
      try {
        return parse(value, previous);
      } catch (e) {
        throw isTroveError(e) ? new InvalidArgumentError(e.message) : e;
      }
    });
  }
  return o;
}

export function registerScopeCommand(program: Command): void {
  const scope = program.command('scope').description('scope tools: check which URLs a crawl would take');
  const test = scope
    .command('test')
    .description('judge URLs against a crawl scope: exit 0 when all are accepted, 1 when any is rejected, 2 on bad input')
    .argument('<url...>', 'URLs to judge; relative ones resolve against --via')
    .option('--seed <url>', 'a seed URL (repeatable; or the seeds of --config)', collect)
    .option('--config <file>', 'a crawl config (JSON or YAML): its seeds and scope, extra rules included; flags win');
  for (const row of SCOPE_ROWS) test.addOption(usageOption(row));
  test
    .option('--via <url>', 'the page the URLs were found on')
    .option('--hops <path>', 'hops path from the seed (letters L E R X P I M S), e.g. LLE', '')
    .option('--show-rules', 'print the rule sequence first')
    .option('--explain', "print every rule's answer (the full trace), not just the one that decided")
    .action(async function (this: Command, urls: string[], opts: ScopeTestOptions) {
      const out = writer(this, 'out');
      const err = writer(this, 'err');

      let scopeRules: Scope;
      let seedKeys: Set<string>;
      {
        if (opts.via !== undefined) normalizeUrl(opts.via);
        if (!/^[LERXPIMS]*$/.test(opts.hops)) {
          throw new TroveError('SCOPE_BAD_HOPS_PATH', `--hops must use only the letters L E R X P I M S, got "${opts.hops}"`);
        }
        // The defaults, then the config file's values, then the flags the user typed.
        const file = opts.config ? readCrawlConfig(opts.config) : {};
        const flags = Object.fromEntries(SCOPE_ROWS.filter((row) => opts[attributeOf(row)] !== undefined).map((row) => [row.key, opts[attributeOf(row)]]));
        const settings = { ...defaultSettings(), ...file, ...flags } as CrawlSettings;
        const seeds = opts.seed ?? file.seeds ?? [];
        if (seeds.length === 0) throw new TroveError('SETTINGS_INVALID', 'give --seed <url> (repeatable) or a --config with seeds');
        seedKeys = new Set(seeds.map((s) => normalizeUrl(s)));
        scopeRules = buildScope(scopeSettingsFrom(settings), seeds);
      }

      if (opts.showRules) out(`${['rules:', ...scopeRules.describe().map((l) => `  ${l}`)].join('\n')}\n\n`);

      let failed = 0;
      let rejected = 0;
      for (const raw of urls) {
        let url: string;
        try {
          const parsed = parseUrl(raw, opts.via);
          parsed.hash = '';
          url = parsed.href;
        } catch (e) {
          if (!isTroveError(e)) throw e;
          failed++;
          err(formatCliError('scope test', e.message, e.code).split('\n')[0]! + '\n');
          continue;
        }
        const seed = opts.hops === '' && seedKeys.has(url);
        const decision = scopeRules.decide({ url, hopsPath: opts.hops, via: opts.via, seed });
        if (decision.decision === 'REJECT') rejected++;
        const context = [`hops "${opts.hops}"`, opts.via ? `via ${opts.via}` : '', seed ? 'seed' : ''].filter(Boolean).join(', ');
        const lines = formatDecision(decision);
        out(`${[`URL ${url} (${context})`, ...(opts.explain ? lines : lines.slice(0, 2))].join('\n')}\n\n`);
      }
      if (failed > 0) {
        throw new TroveError('URL_INVALID', `${failed} of ${urls.length} URL${urls.length > 1 ? 's' : ''} could not be judged`);
      }
      if (rejected > 0) throw new CliExit(1);
    });
}

/** Commander's configured output (tests capture it), or the process streams. */
function writer(cmd: Command, which: 'out' | 'err'): (s: string) => void {
  const config = cmd.configureOutput();
  const configured = which === 'out' ? config.writeOut : config.writeErr;
  if (configured) return (s) => configured(s);
  return which === 'out' ? (s) => process.stdout.write(s) : (s) => process.stderr.write(s);
}
