/**
 * The crawl flags shared by `trove crawl` and `trove resume`, and their mapping onto
 * CrawlSettings. Only flags the user actually gave end up in the partial settings, so a resumed
 * crawl keeps its stored values for everything else.
 */
import fs from 'node:fs';
import { Option, type Command } from 'commander';
import { HERITRIX_RETRIES, POLITENESS_PRESET_NAMES, POLITENESS_PRESETS, ROBOTS_POLICY_NAMES, SCOPE_PRESET_NAMES, type CrawlSettings, type HostOverride, type PolitenessPreset } from '../api/settings.ts';
import { TroveError } from '../errors.ts';
import { readCrawlConfig } from '../crawl/crawl-config-file.ts';
import { normalizeUrl } from '../scope/normalize-url.ts';

function int(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n)) throw new TroveError('SETTINGS_INVALID', `${name} expects a whole number ≥ 0, not ${JSON.stringify(v)}`);
    return n;
  };
}

function num(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < 0) throw new TroveError('SETTINGS_INVALID', `${name} expects a number ≥ 0, not ${JSON.stringify(v)}`);
    return n;
  };
}

/** Sizes like 1GB, 500MiB, 1e9, 1024. */
export function parseBytes(v: string): number {
  const m = /^\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([kmgt]?i?b?)?\s*$/i.exec(v);
  if (!m) throw new TroveError('SETTINGS_INVALID', `not a size: ${JSON.stringify(v)} (use e.g. 500MB, 1GiB, 1048576)`);
  const unit = (m[2] ?? '').toLowerCase().replace(/b$/, '');
  const pow = { '': 0, k: 1, m: 2, g: 3, t: 4, ki: 1, mi: 2, gi: 3, ti: 4 }[unit];
  if (pow === undefined) throw new TroveError('SETTINGS_INVALID', `unknown size unit in ${JSON.stringify(v)}`);
  const base = unit.endsWith('i') || unit === '' ? 1024 : 1000;
  return Math.round(Number(m[1]) * base ** pow);
}

function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

/** `host=example.org,min-delay-ms=500,per-host=2` → HostOverride. */
export function parseOverride(v: string): HostOverride {
  const o: HostOverride = {};
  for (const part of v.split(',')) {
    const [k, val] = part.split('=').map((s) => s.trim());
    if (!k || val === undefined) throw new TroveError('SETTINGS_INVALID', `--override: expected key=value pairs, got ${JSON.stringify(part)}`);
    const n = () => num(`--override ${k}`)(val);
    switch (k) {
      case 'host': o.host = val; break;
      case 'domain': o.domain = val; break;
      case 'min-delay-ms': o.minDelayMs = n(); break;
      case 'max-delay-ms': o.maxDelayMs = n(); break;
      case 'delay-factor': o.delayFactor = n(); break;
      case 'per-host': o.perHost = n(); break;
      case 'max-kbps-per-host': o.maxKbpsPerHost = n(); break;
      case 'robots': o.robots = val as HostOverride['robots']; break;
      case 'user-agent': o.userAgent = val; break;
      default: throw new TroveError('SETTINGS_INVALID', `--override: unknown key ${JSON.stringify(k)}`);
    }
  }
  if (!o.host && !o.domain) throw new TroveError('SETTINGS_INVALID', '--override needs host=… or domain=…');
  return o;
}

export function addCrawlOptions(cmd: Command): Command {
  return cmd
    .option('--name <name>', 'crawl name (warcinfo isPartOf)')
    .option('--config <file>', 'crawl config (JSON or YAML): any setting by name, plus scopeRules and overrides; flags win')
    .option('--seeds-file <file>', 'read seeds from a file, one URL per line (# comments allowed)')
    .addOption(new Option('--scope <preset>', 'scope preset').choices(SCOPE_PRESET_NAMES))
    .option('--include <regex>', 'also accept URLs matching (repeatable)', collect)
    .option('--exclude <regex>', 'reject URLs matching; exclusions always win (repeatable)', collect)
    .option('--max-hops <n>', 'maximum link hops from a seed (20)', int('--max-hops'))
    .option('--trans-hops <n>', 'embeds/redirects followed off-scope (2)', int('--trans-hops'))
    .option('--max-path-repeats <n>', 'reject a path segment repeated more than n times (2)', int('--max-path-repeats'))
    .option('--max-path-depth <n>', 'reject URLs with more path segments (20)', int('--max-path-depth'))
    .addOption(new Option('--politeness <preset>', 'politeness preset: polite = Heritrix defaults').choices(POLITENESS_PRESET_NAMES))
    .option('--concurrency <n>', 'total fetch slots (8)', int('--concurrency'))
    .option('--per-host <n>', 'fetches in flight per queue (1)', int('--per-host'))
    .option('--delay-factor <x>', 'politeness: delay = factor × fetch time (5)', num('--delay-factor'))
    .option('--min-delay-ms <ms>', 'politeness minimum delay (3000)', int('--min-delay-ms'))
    .option('--max-delay-ms <ms>', 'politeness maximum delay (30000)', int('--max-delay-ms'))
    .option('--crawl-delay-cap-s <s>', 'honour robots Crawl-delay up to this (300)', int('--crawl-delay-cap-s'))
    .option('--max-kbps-per-host <kbps>', 'bandwidth cap per host (0 = off)', num('--max-kbps-per-host'))
    .option('--override <spec>', 'per-host settings, e.g. host=example.org,min-delay-ms=500,per-host=2 (repeatable)', collect)
    .option('--queue-policy <policy>', 'host (one queue per host) or elfhash:<n> (n queues per site: several connections to one server)')
    .addOption(new Option('--robots <policy>', 'robots policy').choices(ROBOTS_POLICY_NAMES))
    .option('--robots-file <file>', 'robots.txt rules for --robots custom')
    .option('--candidate-agents <list>', 'comma-separated agents for most-favored / first-named')
    .option('--masquerade', 'send the user agent that robots.txt allowed')
    .option('--robots-ttl <s>', 'robots.txt cache time in seconds (86400)', int('--robots-ttl'))
    .option('--sitemaps', 'crawl the sitemaps named in robots.txt and follow sitemap entries (hop M, still scoped)')
    .option('--user-agent <ua>', 'User-Agent header')
    .option('--operator <contact>', 'operator contact (email: also sent as From)')
    .option('--connect-timeout-s <s>', 'connect timeout (20)', int('--connect-timeout-s'))
    .option('--headers-timeout-s <s>', 'the response head must arrive within this after the request (30)', int('--headers-timeout-s'))
    .option('--idle-timeout-s <s>', 'no byte received for this long ends the fetch (60)', int('--idle-timeout-s'))
    .option('--fetch-timeout-s <s>', 'whole-fetch timeout (300)', int('--fetch-timeout-s'))
    .option('--max-body-bytes <size>', 'truncate bodies past this (1GiB), WARC-Truncated: length', parseBytes)
    .option('--max-header-bytes <size>', 'a longer response head is a protocol error, -50 (256KiB)', parseBytes)
    .option('--max-extract-bytes <size>', 'decompressed bytes of a body fed to link extraction (32MiB)', parseBytes)
    .option('--max-links-per-document <n>', 'links kept per document, past it annotated links-capped (20000)', int('--max-links-per-document'))
    .option('--max-url-length <n>', 'reject URLs longer than n characters, rule url-length in scope.log (2083)', int('--max-url-length'))
    .option('--max-retries <n>', 'retries for connect failures, timeouts and 5xx (3)', int('--max-retries'))
    .option('--retry-delay-s <s>', 'wait before the first retry, doubled each time (10)', int('--retry-delay-s'))
    .addOption(new Option('--retry-preset <preset>', 'heritrix: 30 tries, 900 s apart, for long crawls').choices(['heritrix']))
    .option('--warc-max-bytes <size>', 'rotate WARC files past this size (1GB)', parseBytes)
    .option('--warc-prefix <prefix>', 'WARC file name prefix (TROVE)')
    .addOption(new Option('--dedup <mode>', 'write revisit records for duplicate payloads').choices(['off', 'url', 'digest']))
    .option('--dedup-from <source>', 'an earlier crawl directory or CDXJ file: its payloads become revisits, its URLs are fetched conditionally (repeatable)', collect)
    .option('--limit-pages <n>', 'capture at most n pages (HTML documents reached by links), then fetch what those pages still need (stylesheets, images, redirects) and finish; 0 = no limit', int('--limit-pages'))
    .option('--no-limit-pages', 'resume: clear the page limit')
    .option('--limit-uris <n>', 'stop after n fetches of any kind, robots.txt included (a crawl that reads robots.txt needs 2 or more to reach a page); 0 = no limit', int('--limit-uris'))
    .option('--no-limit-uris', 'resume: clear the URI limit')
    .option('--limit-bytes <size>', 'stop after this many bytes downloaded; 0 = no limit', parseBytes)
    .option('--no-limit-bytes', 'resume: clear the byte limit')
    .option('--limit-time <s>', 'stop after this many seconds of crawling; 0 = no limit', int('--limit-time'))
    .option('--no-limit-time', 'resume: clear the time limit')
    .option('--max-total-warc-bytes <size>', 'stop once the WARCs reach this size', parseBytes)
    .option('--min-free-disk <size>', 'pause when free disk falls under this (1GiB)', parseBytes)
    .option('--browser', 'load seeds and pages in Chromium tabs (script-built content, lazy images, fonts…); embeds and everything else by HTTP')
    .option('--browser-path <path>', 'the Chromium or Chrome executable for --browser (else $TROVE_CHROMIUM, then the usual install paths)')
    .option('--browser-tabs <n>', 'browser tabs at once, each one connection to its page\'s host (2)', int('--browser-tabs'))
    .option('--no-progress', 'no progress bar (plain log lines)');
}

type Opts = Record<string, unknown>;

export function settingsFromOptions(opts: Opts, seeds: string[]): Partial<CrawlSettings> {
  const s: Partial<CrawlSettings> = typeof opts.config === 'string' ? readCrawlConfig(opts.config) : {};
  const allSeeds = [...(s.seeds ?? []), ...seeds];
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
      allSeeds.push(t);
    });
  }
  if (allSeeds.length) s.seeds = allSeeds;
  if (opts.retryPreset === 'heritrix') Object.assign(s, HERITRIX_RETRIES);
  if (opts.politeness) Object.assign(s, { politeness: opts.politeness, ...POLITENESS_PRESETS[opts.politeness as PolitenessPreset] });
  const direct: [string, keyof CrawlSettings][] = [
    ['name', 'name'], ['scope', 'scope'], ['include', 'include'], ['exclude', 'exclude'], ['maxHops', 'maxHops'], ['transHops', 'transHops'],
    ['maxPathRepeats', 'maxPathRepeats'], ['maxPathDepth', 'maxPathDepth'], ['concurrency', 'concurrency'], ['perHost', 'perHost'],
    ['delayFactor', 'delayFactor'], ['minDelayMs', 'minDelayMs'], ['maxDelayMs', 'maxDelayMs'], ['crawlDelayCapS', 'crawlDelayCapS'],
    ['maxKbpsPerHost', 'maxKbpsPerHost'], ['queuePolicy', 'queuePolicy'], ['robots', 'robots'], ['robotsFile', 'robotsFile'],
    ['masquerade', 'masquerade'], ['sitemaps', 'sitemaps'], ['robotsTtl', 'robotsTtlS'], ['userAgent', 'userAgent'], ['operator', 'operator'],
    ['connectTimeoutS', 'connectTimeoutS'], ['headersTimeoutS', 'headersTimeoutS'], ['idleTimeoutS', 'idleTimeoutS'], ['fetchTimeoutS', 'fetchTimeoutS'],
    ['maxBodyBytes', 'maxBodyBytes'], ['maxHeaderBytes', 'maxHeaderBytes'], ['maxExtractBytes', 'maxExtractBytes'],
    ['maxLinksPerDocument', 'maxLinksPerDocument'], ['maxUrlLength', 'maxUrlLength'], ['maxRetries', 'maxRetries'], ['retryDelayS', 'retryDelayS'], ['warcMaxBytes', 'warcMaxBytes'], ['warcPrefix', 'warcPrefix'],
    ['dedup', 'dedup'], ['limitPages', 'limitPages'], ['limitUris', 'limitUris'], ['limitBytes', 'limitBytes'], ['limitTime', 'limitTimeS'],
    ['maxTotalWarcBytes', 'maxTotalWarcBytes'], ['minFreeDisk', 'minFreeDiskBytes'],
  ];
  for (const [opt, key] of direct) if (opts[opt] !== undefined) (s as Record<string, unknown>)[key] = opts[opt];
  // --no-limit-pages and co.: a limit cleared (0 = none), e.g. to resume a crawl that hit it.
  for (const key of ['limitPages', 'limitUris', 'limitBytes', 'limitTimeS'] as const) if (s[key] === (false as unknown)) s[key] = 0;
  if (typeof opts.candidateAgents === 'string') s.candidateAgents = opts.candidateAgents.split(',').map((a) => a.trim()).filter(Boolean);
  if (Array.isArray(opts.dedupFrom)) s.dedupFrom = opts.dedupFrom as string[];
  if (Array.isArray(opts.override)) s.overrides = (opts.override as string[]).map(parseOverride);
  if (opts.browser === true || opts.browserPath !== undefined || opts.browserTabs !== undefined) {
    s.browser = {
      enabled: true,
      tabs: (opts.browserTabs as number | undefined) ?? s.browser?.tabs ?? 2,
      ...(typeof opts.browserPath === 'string' ? { path: opts.browserPath } : s.browser?.path ? { path: s.browser.path } : {}),
    };
  }
  return s;
}
