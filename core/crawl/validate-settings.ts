/**
 * Settings checks before anything is written: a bad seed, flag or number is a clear error with
 * the code SETTINGS_INVALID (the CLI exits 2), never a crawl that half-starts.
 */
import fs from 'node:fs';
import { TroveError } from '../errors.ts';
import type { CrawlSettings } from '../api/settings.ts';
import { normalizeUrl } from '../scope/normalize-url.ts';
import { buildScope, scopeSettingsFrom } from '../scope/decide-rules.ts';

const POLICIES = ['obey', 'ignore', 'custom', 'most-favored', 'first-named'];
const SCOPES = ['page', 'prefix', 'host', 'domain', 'any'];
const DEDUP = ['off', 'url', 'digest'];

function invalid(message: string, details: Record<string, unknown> = {}): TroveError {
  return new TroveError('SETTINGS_INVALID', message, details);
}

export function validateSettings(s: CrawlSettings, opts: { requireSeeds: boolean }): void {
  if (opts.requireSeeds && s.seeds.length === 0) throw invalid('no seeds: give at least one URL (or --seeds-file)');
  for (const seed of s.seeds) {
    try {
      normalizeUrl(seed);
    } catch (err) {
      throw invalid(`invalid seed ${JSON.stringify(seed)}: ${(err as Error).message}`, { seed });
    }
  }
  if (!SCOPES.includes(s.scope)) throw invalid(`--scope must be one of ${SCOPES.join(', ')}, not ${JSON.stringify(s.scope)}`);
  if (!POLICIES.includes(s.robots)) throw invalid(`--robots must be one of ${POLICIES.join(', ')}, not ${JSON.stringify(s.robots)}`);
  if (s.robots === 'custom' && !s.robotsFile) throw invalid('--robots custom needs --robots-file <file>');
  if (!DEDUP.includes(s.dedup)) throw invalid(`--dedup must be one of ${DEDUP.join(', ')}`);
  if (s.retryBackoff !== 'exponential' && s.retryBackoff !== 'fixed') throw invalid('retryBackoff must be exponential or fixed');
  if (!/^(host|elfhash:[1-9]\d{0,4})$/.test(s.queuePolicy)) throw invalid(`--queue-policy must be host or elfhash:<n>, not ${JSON.stringify(s.queuePolicy)}`);
  const ints: (keyof CrawlSettings)[] = [
    'maxHops', 'transHops', 'maxPathRepeats', 'maxPathDepth', 'maxUrlLength', 'concurrency', 'perHost', 'minDelayMs', 'maxDelayMs',
    'crawlDelayCapS', 'maxKbpsPerHost', 'robotsTtlS', 'connectTimeoutS', 'headersTimeoutS', 'idleTimeoutS', 'fetchTimeoutS',
    'maxBodyBytes', 'maxHeaderBytes', 'retryDelayS', 'maxExtractBytes', 'maxLinksPerDocument', 'maxRetries', 'warcMaxBytes', 'limitPages',
    'limitUris', 'limitBytes', 'limitTimeS', 'maxTotalWarcBytes', 'minFreeDiskBytes',
  ];
  for (const k of ints) {
    const v = s[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw invalid(`${k} must be a number ≥ 0, not ${JSON.stringify(v)}`, { setting: k });
  }
  // A zero timeout or head cap would fail every fetch (the fetcher refuses them): say so now.
  for (const k of ['connectTimeoutS', 'headersTimeoutS', 'idleTimeoutS', 'fetchTimeoutS', 'maxHeaderBytes'] as const) {
    if (!(s[k] > 0)) throw invalid(`${k} must be more than 0`, { setting: k });
  }
  if (typeof s.delayFactor !== 'number' || !(s.delayFactor >= 0)) throw invalid('delayFactor must be a number ≥ 0');
  if (s.concurrency < 1 || s.concurrency > 512) throw invalid('--concurrency must be between 1 and 512');
  if (s.perHost < 1 || s.perHost > 64) throw invalid('--per-host must be between 1 and 64');
  if (s.warcMaxBytes < 1024) throw invalid('--warc-max-bytes must be at least 1024');
  if (!s.userAgent || /[\r\n]/.test(s.userAgent)) throw invalid('--user-agent must be a non-empty single line');
  for (const src of s.dedupFrom ?? []) {
    if (!fs.existsSync(src)) throw invalid(`--dedup-from ${src}: no such crawl directory or CDXJ file`);
  }
  // The scope too (regexes compile, extra rules are well formed), before anything is written.
  buildScope(scopeSettingsFrom(s), s.seeds);
  if (!/^[A-Za-z0-9._-]+$/.test(s.warcPrefix)) throw invalid('the WARC prefix may hold only letters, digits, ".", "_" and "-"');
}
