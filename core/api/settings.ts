/**
 * Crawl settings: the one shape the CLI, the desktop app and a crawl directory's saved
 * `crawl.json` share. Plain data only (no node:* imports) so the renderer can import it.
 */

/**
 * The named choices, each listed once: the CLI's option choices and help, the payload and
 * settings validators, the scope builder and the renderer's radio groups derive from these.
 */
export const SCOPE_PRESET_NAMES = ['page', 'prefix', 'host', 'domain', 'any'] as const;
export const ROBOTS_POLICY_NAMES = ['obey', 'ignore', 'custom', 'most-favored', 'first-named'] as const;
export const POLITENESS_PRESET_NAMES = ['polite', 'moderate', 'fast'] as const;
export const DEDUP_MODE_NAMES = ['off', 'url', 'digest'] as const;

export type ScopePreset = (typeof SCOPE_PRESET_NAMES)[number];
export type RobotsPolicy = (typeof ROBOTS_POLICY_NAMES)[number];
export type PolitenessPreset = (typeof POLITENESS_PRESET_NAMES)[number];
export type DedupMode = (typeof DEDUP_MODE_NAMES)[number];

/** Whether `value` is one of `names` (narrowing it). */
export function isOneOf<T extends string>(names: readonly T[], value: unknown): value is T {
  return (names as readonly unknown[]).includes(value);
}

/**
 * Extra scope rules from a crawl config (the same union core/scope uses): each says what it
 * answers when it matches. `mime` and `content-length` apply after fetch.
 */
export type ScopeRuleConfig =
  | { type: 'on-host'; hosts: string[]; decision: 'ACCEPT' | 'REJECT' }
  | { type: 'on-domain'; domains: string[]; decision: 'ACCEPT' | 'REJECT' }
  | { type: 'regex'; pattern: string; decision: 'ACCEPT' | 'REJECT' }
  | { type: 'hops-path'; pattern: string; decision: 'ACCEPT' | 'REJECT' }
  | { type: 'file-type'; presets?: ('images' | 'audio' | 'video' | 'documents')[]; extensions?: string[]; decision: 'ACCEPT' | 'REJECT' }
  | { type: 'mime'; pattern: string; decision: 'ACCEPT' | 'REJECT' }
  | { type: 'content-length'; over?: number; under?: number; decision: 'ACCEPT' | 'REJECT' };

/** A per-host or per-domain override, as Heritrix's settings sheets. More specific wins. */
export interface HostOverride {
  /** `example.org` matches that host; `.example.org` or `domain=example.org` matches it and subdomains. */
  host?: string;
  domain?: string;
  minDelayMs?: number;
  maxDelayMs?: number;
  delayFactor?: number;
  perHost?: number;
  robots?: RobotsPolicy;
  userAgent?: string;
  maxKbpsPerHost?: number;
}

export interface CrawlSettings {
  /** Crawl name, written as warcinfo isPartOf and used for the WARC prefix. */
  name: string;
  seeds: string[];

  // scope
  scope: ScopePreset;
  include: string[];
  exclude: string[];
  maxHops: number;
  transHops: number;
  maxPathRepeats: number;
  maxPathDepth: number;
  maxUrlLength: number;
  /** Extra decide rules (crawl config only). */
  scopeRules: ScopeRuleConfig[];

  // politeness
  politeness: PolitenessPreset;
  concurrency: number;
  perHost: number;
  delayFactor: number;
  minDelayMs: number;
  maxDelayMs: number;
  crawlDelayCapS: number;
  maxKbpsPerHost: number;
  overrides: HostOverride[];
  queuePolicy: string; // 'host' | `elfhash:${n}`

  // robots
  robots: RobotsPolicy;
  robotsFile?: string;
  candidateAgents: string[];
  masquerade: boolean;
  robotsTtlS: number;
  sitemaps: boolean;

  // identity
  userAgent: string;
  operator: string;

  // fetch limits
  connectTimeoutS: number;
  headersTimeoutS: number;
  idleTimeoutS: number;
  fetchTimeoutS: number;
  maxBodyBytes: number;
  maxHeaderBytes: number;
  maxExtractBytes: number;
  maxLinksPerDocument: number;
  maxRetries: number;
  /** Wait before the first retry; doubled each time unless `retryBackoff` is 'fixed' (Heritrix: 900 s fixed, 30 tries). */
  retryDelayS: number;
  retryBackoff: 'exponential' | 'fixed';

  // WARC
  warcMaxBytes: number;
  warcPrefix: string;
  dedup: DedupMode;
  /** Earlier crawls (directories) or CDXJ files whose captures count as already archived. */
  dedupFrom: string[];

  // limits (0 = none)
  limitPages: number;
  limitUris: number;
  limitBytes: number;
  limitTimeS: number;
  maxTotalWarcBytes: number;
  minFreeDiskBytes: number;

  /** Browser capture: seeds and pages are loaded in Chromium tabs, everything else by HTTP. */
  browser: BrowserSettings;
}

export interface BrowserSettings {
  enabled: boolean;
  /** The Chromium (or Chrome) executable; found on the system when not given. */
  path?: string;
  /** Tabs at once: each is one connection against its page's host. */
  tabs: number;
}

export const POLITENESS_PRESETS: Record<PolitenessPreset, Pick<CrawlSettings, 'delayFactor' | 'minDelayMs' | 'maxDelayMs' | 'perHost'>> = {
  // Heritrix's defaults.
  polite: { delayFactor: 5, minDelayMs: 3000, maxDelayMs: 30000, perHost: 1 },
  moderate: { delayFactor: 2, minDelayMs: 1000, maxDelayMs: 10000, perHost: 1 },
  // Heritrix's "less polite" sheet: no delay, several connections per host.
  fast: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, perHost: 4 },
};

/** Heritrix's retry policy for long crawls: 30 tries, 900 s apart. */
export const HERITRIX_RETRIES: Pick<CrawlSettings, 'maxRetries' | 'retryDelayS' | 'retryBackoff'> = { maxRetries: 30, retryDelayS: 900, retryBackoff: 'fixed' };

export const TROVE_VERSION = '0.1.0';
export const DEFAULT_USER_AGENT = `Mozilla/5.0 (compatible; Trove/${TROVE_VERSION}; +https://github.com/trove-archive/trove)`;

export function defaultSettings(): CrawlSettings {
  return {
    name: 'crawl',
    seeds: [],
    scope: 'prefix',
    include: [],
    exclude: [],
    maxHops: 20,
    transHops: 2,
    maxPathRepeats: 2,
    maxPathDepth: 20,
    maxUrlLength: 2083,
    scopeRules: [],
    politeness: 'polite',
    concurrency: 8,
    ...POLITENESS_PRESETS.polite,
    crawlDelayCapS: 300,
    maxKbpsPerHost: 0,
    overrides: [],
    queuePolicy: 'host',
    robots: 'obey',
    candidateAgents: [],
    masquerade: false,
    robotsTtlS: 24 * 3600,
    sitemaps: false,
    userAgent: DEFAULT_USER_AGENT,
    operator: '',
    connectTimeoutS: 20,
    headersTimeoutS: 30,
    idleTimeoutS: 60,
    fetchTimeoutS: 300,
    maxBodyBytes: 1024 ** 3,
    maxHeaderBytes: 256 * 1024,
    maxExtractBytes: 32 * 1024 * 1024,
    maxLinksPerDocument: 20000,
    maxRetries: 3,
    retryDelayS: 10,
    retryBackoff: 'exponential',
    warcMaxBytes: 1e9,
    warcPrefix: 'TROVE',
    dedup: 'digest',
    dedupFrom: [],
    limitPages: 0,
    limitUris: 0,
    limitBytes: 0,
    limitTimeS: 0,
    maxTotalWarcBytes: 0,
    minFreeDiskBytes: 1024 ** 3,
    browser: { enabled: false, tabs: 2 },
  };
}
