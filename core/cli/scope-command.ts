/**
 * `trove scope test`: explain, rule by rule, whether URLs would be crawled for some seeds.
 *
 *   trove scope test https://example.com/docs/a https://cdn.example.net/x.png \
 *     --seed https://example.com/docs/ --hops LE
 *
 * `--seed`, `--include` and `--exclude` take several values, so give the URLs first or end the
 * list with `--`. Exit 0 when every URL was judged; 2 when a URL, seed or pattern is invalid
 * (the others are still judged).
 */
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { defaultSettings, type CrawlSettings } from '../api/settings.ts';
import { readCrawlConfig } from '../crawl/crawl-config-file.ts';
import { isTroveError } from '../errors.ts';
import { buildScope, SCOPE_PRESETS } from '../scope/decide-rules.ts';
import type { Scope, ScopePresetName } from '../scope/decide-rules.ts';
import { formatDecision } from '../scope/format-decision.ts';
import { normalizeUrl, parseUrl } from '../scope/normalize-url.ts';

interface ScopeTestOptions {
  seed?: string[];
  config?: string;
  scope: ScopePresetName;
  include?: string[];
  exclude?: string[];
  maxHops: number;
  transHops: number;
  maxPathRepeats: number;
  maxPathDepth: number;
  maxUrlLength: number;
  via?: string;
  hops: string;
  showRules?: boolean;
}

export function registerScopeCommand(program: Command): void {
  const d = defaultSettings();
  const scope = program.command('scope').description('scope tools: check which URLs a crawl would take');
  scope
    .command('test')
    .description('judge URLs against a crawl scope and explain every rule (URLs first, or end option lists with --)')
    .argument('<url...>', 'URLs to judge; relative ones resolve against --via')
    .option('--seed <url...>', 'seed URL(s) (or the seeds of --config)')
    .option('--config <file>', 'a crawl config (JSON or YAML): its seeds and scope, extra rules included; flags win')
    .addOption(new Option('--scope <preset>', 'seed-implied scope').choices(SCOPE_PRESETS).default(d.scope))
    .option('--include <regex...>', 'regexes that put URLs in scope (excludes still win)')
    .option('--exclude <regex...>', 'regexes that take URLs out of scope')
    .option('--max-hops <n>', 'reject URLs more than n hops from a seed', wholeNumber, d.maxHops)
    .option('--trans-hops <n>', 'accept up to n embed/redirect hops after the last link', wholeNumber, d.transHops)
    .option('--max-path-repeats <n>', 'reject a path segment repeated more than n times in a row', wholeNumber, d.maxPathRepeats)
    .option('--max-path-depth <n>', 'reject paths with more than n segments', wholeNumber, d.maxPathDepth)
    .option('--max-url-length <n>', 'reject URLs longer than n characters', wholeNumber, d.maxUrlLength)
    .option('--via <url>', 'the page the URLs were found on')
    .option('--hops <path>', 'hops path from the seed (letters L E R X P I M S), e.g. LLE', '')
    .option('--show-rules', 'print the rule sequence first')
    .action(async function (this: Command, urls: string[], opts: ScopeTestOptions) {
      const out = writer(this, 'out');
      const err = writer(this, 'err');

      let scopeRules: Scope;
      let seedKeys: Set<string>;
      try {
        if (opts.via !== undefined) normalizeUrl(opts.via);
        if (!/^[LERXPIMS]*$/.test(opts.hops)) {
          this.error(`error: --hops must use only the letters L E R X P I M S, got "${opts.hops}"`, { exitCode: 2, code: 'SCOPE_BAD_HOPS_PATH' });
        }
        // A config file gives the base; a flag the user typed wins over it.
        const file = opts.config ? readCrawlConfig(opts.config) : {};
        const pick = <K extends keyof ScopeTestOptions & keyof CrawlSettings>(key: K, fallback: CrawlSettings[K]): CrawlSettings[K] =>
          this.getOptionValueSource(key) === 'cli' || file[key] === undefined ? ((opts[key] ?? fallback) as CrawlSettings[K]) : (file[key] as CrawlSettings[K]);
        const seeds = opts.seed ?? file.seeds ?? [];
        if (seeds.length === 0) this.error('error: give --seed <url...> or a --config with seeds', { exitCode: 2, code: 'SETTINGS_INVALID' });
        seedKeys = new Set(seeds.map((s) => normalizeUrl(s)));
        scopeRules = buildScope(
          {
            scope: pick('scope', d.scope),
            include: pick('include', []),
            exclude: pick('exclude', []),
            maxHops: pick('maxHops', d.maxHops),
            transHops: pick('transHops', d.transHops),
            maxPathRepeats: pick('maxPathRepeats', d.maxPathRepeats),
            maxPathDepth: pick('maxPathDepth', d.maxPathDepth),
            maxUrlLength: pick('maxUrlLength', d.maxUrlLength),
            rules: file.scopeRules ?? [],
          },
          seeds,
        );
      } catch (e) {
        if (isTroveError(e)) this.error(`error: ${e.message}`, { exitCode: 2, code: e.code });
        throw e;
      }

      if (opts.showRules) out(`${['rules:', ...scopeRules.describe().map((l) => `  ${l}`)].join('\n')}\n\n`);

      let failed = 0;
      for (const raw of urls) {
        let url: string;
        try {
          const parsed = parseUrl(raw, opts.via);
          parsed.hash = '';
          url = parsed.href;
        } catch (e) {
          if (!isTroveError(e)) throw e;
          failed++;
          err(`error: ${e.message}\n`);
          continue;
        }
        const seed = opts.hops === '' && seedKeys.has(url);
        const decision = scopeRules.decide({ url, hopsPath: opts.hops, via: opts.via, seed });
        const context = [`hops "${opts.hops}"`, opts.via ? `via ${opts.via}` : '', seed ? 'seed' : ''].filter(Boolean).join(', ');
        out(`${[`URL ${url} (${context})`, ...formatDecision(decision)].join('\n')}\n\n`);
      }
      if (failed > 0) {
        this.error(`error: ${failed} of ${urls.length} URL${urls.length > 1 ? 's' : ''} could not be judged`, { exitCode: 2, code: 'URL_INVALID' });
      }
    });
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return Number(value);
}

/** Commander's configured output (tests capture it), or the process streams. */
function writer(cmd: Command, which: 'out' | 'err'): (s: string) => void {
  const config = cmd.configureOutput();
  const configured = which === 'out' ? config.writeOut : config.writeErr;
  if (configured) return (s) => configured(s);
  return which === 'out' ? (s) => process.stdout.write(s) : (s) => process.stderr.write(s);
}
