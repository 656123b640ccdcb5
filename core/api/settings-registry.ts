/**
 * The settings registry: one row per crawl setting, the one home of everything said about it —
 * its key and type, default, bounds or choices, unit, CLI flag and help, the form's label, unit
 * and help, and whether the app and `trove resume` may change it. The CrawlSettings type and
 * defaultSettings() (settings.ts), the IPC payload validator (settings-payload.ts), the checks of
 * settingsProblems (core/crawl/validate-settings.ts), the flags of `trove crawl`/`resume`
 * (core/cli/crawl-options.ts) and the New crawl form's labels, units and help are all read from
 * these rows, so adding a setting is adding its row (and the code that uses it).
 *
 * Plain data, no node:* and no imports with run-time code from outside core/api: the renderer
 * imports it. Checks that need the rest of the core (a seed URL that parses, a regex that
 * compiles, a file that exists) are named here (`check`) and done by validate-settings.ts.
 */
import { CAPTURE_MODE_NAMES, DEDUP_MODE_NAMES, MEDIA_RENDITION_NAMES, POLITENESS_PRESET_NAMES, PROFILE_NAME, RETRY_BACKOFF_NAMES, ROBOTS_POLICY_NAMES, SCOPE_PRESET_NAMES, type HostOverride, type ScopeRuleConfig } from './setting-choices.ts';
import type { FieldUnit, SettingUnit } from './setting-units.ts';
import { DEFAULT_USER_AGENT } from './trove-version.ts';

export { CAPTURE_MODE_NAMES, DEDUP_MODE_NAMES, MEDIA_RENDITION_NAMES, POLITENESS_PRESET_NAMES, RETRY_BACKOFF_NAMES, ROBOTS_POLICY_NAMES, SCOPE_PRESET_NAMES };

type PolitenessValues = { delayFactor: number; minDelayMs: number; maxDelayMs: number; perHost: number };
/** What each politeness preset sets (choosing one on the CLI or in the form sets these four). */
export const POLITENESS_PRESETS: Record<(typeof POLITENESS_PRESET_NAMES)[number], PolitenessValues> = {
  // Heritrix's defaults.
  polite: { delayFactor: 5, minDelayMs: 3000, maxDelayMs: 30000, perHost: 1 },
  moderate: { delayFactor: 2, minDelayMs: 1000, maxDelayMs: 10000, perHost: 1 },
  // Heritrix's "less polite" sheet: no delay, several connections per host.
  fast: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, perHost: 4 },
};

/**
 * Where a setting belongs: the group its flag is listed under in the CLI's help (and, roughly,
 * the form's card). The Scope settings are also checked together, by building the scope.
 */
export type SettingSection = 'Crawl' | 'Scope' | 'Politeness' | 'Robots' | 'Identity' | 'Fetching' | 'WARC files' | 'Limits' | 'Browser capture' | 'Login';

/**
 * Checks that need more of the core than bounds and patterns; validate-settings.ts does each.
 * `seed-urls`: every seed normalises; `regex-lines`: every line compiles (with the scope);
 * `scope-rules`: every extra rule builds; `host-overrides`: each override's host and its fields;
 * `existing-paths`: every path exists; `existing-file-if-enabled`: the file exists when its group is enabled;
 * `cookies-file`: the file is a readable Netscape cookies.txt.
 */
export type DeepCheck = 'seed-urls' | 'regex-lines' | 'scope-rules' | 'host-overrides' | 'existing-paths' | 'existing-file-if-enabled' | 'cookies-file';

/** How the CLI takes a setting. */
export interface CliSpec {
  /** `--max-hops`; a boolean setting's flag takes no value. */
  flag: string;
  /** The value's placeholder in help: `<n>`, `<size>`, `<s>`. */
  arg?: string;
  help: string;
  /** May be given several times; each adds to the list. */
  repeatable?: true;
  /** A list given as one comma-separated value. */
  commaList?: true;
  /** The flags' values are added to the config file's (seeds), not put in their place. */
  append?: true;
  /** A `--no-…` flag that clears the setting to 0 (its "none"), with this help. */
  clear?: string;
  /** Giving this flag also sets another setting of its group (`--browser-tabs` turns browser capture on). */
  implies?: { key: string; value: boolean };
  /** What the help says the default is when it is not the row's value (the name defaults to the --out folder's). */
  defaultText?: string;
  /** Only on `trove crawl`, not `trove resume`. */
  crawlOnly?: true;
}

interface RowBase<K extends string> {
  key: K;
  section: SettingSection;
  /** The form's label, also the name the form's problem list uses. */
  label: string;
  /** The form's help (a field's tooltip), in words without flag names. */
  help: string;
  cli: CliSpec;
  /**
   * May the app's renderer set it? When not, why (a path the main process would read or run),
   * and the field the app sends in its place, if any (the custom robots.txt as text).
   */
  app: true | { refused: string; sentAs?: string };
  /** May `trove resume` (and the app's resume) change it? */
  resume: boolean;
  optional?: true;
  check?: DeepCheck;
}

export interface NumberRow<K extends string = string> extends RowBase<K> {
  type: 'number';
  default: number;
  unit: SettingUnit;
  min: number;
  max: number;
  whole: boolean;
  /** What 0 means, when it means "none". */
  zero?: string;
  /** The form shows it in this unit (MB, min) when not in its own. */
  field?: FieldUnit;
  /** Must not be below this other setting: the message, with {value} and {other} filled in. */
  notBelow?: { key: string; message: string };
}

export interface StringRow<K extends string = string> extends RowBase<K> {
  type: 'string';
  default: string | undefined;
  maxLength: number;
  /** A pattern the whole value must match, and what to say when it does not. */
  pattern?: { regex: string; message: string };
  /** One non-empty line (no CR or LF). */
  line?: true;
  /** A path a config file gives relative to itself (resolved against the file). */
  path?: true;
  /** Needed when another setting has a value. */
  requiredWhen?: { key: string; is: string; message: string };
}

export interface BooleanRow<K extends string = string> extends RowBase<K> {
  type: 'boolean';
  default: boolean;
}

export interface ChoiceRow<K extends string = string, C extends string = string> extends RowBase<K> {
  type: 'choice';
  default: C;
  choices: readonly C[];
  /** Choosing a value also sets these settings (a politeness preset sets its delays). */
  sets?: Record<C, Record<string, unknown>>;
}

export interface ListRow<K extends string = string> extends RowBase<K> {
  type: 'list';
  default: string[];
  itemMaxLength: number;
  maxItems: number;
  /** Paths a config file gives relative to itself. */
  path?: true;
}

/** A list of objects with a validator of its own (settings-payload.ts, by `shape`). */
export interface StructuredRow<K extends string = string, V = unknown> extends RowBase<K> {
  type: 'structured';
  default: V;
  shape: 'host-override' | 'scope-rule';
  maxItems: number;
  /** What the form calls one item, numbered from 1 ("Override 2"). */
  itemLabel: string;
  /** The settings whose rows the items' fields reuse (an override's delays are checked as the crawl's). */
  fields?: readonly string[];
}

export type SettingRow = NumberRow | StringRow | BooleanRow | ChoiceRow | ListRow | StructuredRow;

type Spec<R> = Omit<R, 'key' | 'type' | 'app'>;
const app = true as const;
const number = <K extends string>(key: K, spec: Spec<NumberRow<K>>): NumberRow<K> => ({ key, type: 'number', app, ...spec });
const string = <K extends string>(key: K, spec: Spec<StringRow<K>>): StringRow<K> => ({ key, type: 'string', app, ...spec });
/** A string setting with no default: absent until given (a file the user names). */
const optionalString = <K extends string>(key: K, spec: Omit<Spec<StringRow<K>>, 'default' | 'optional'>): StringRow<K> & { optional: true } => ({
  key,
  type: 'string',
  app,
  default: undefined,
  optional: true,
  ...spec,
});
const boolean = <K extends string>(key: K, spec: Spec<BooleanRow<K>>): BooleanRow<K> => ({ key, type: 'boolean', app, ...spec });
const choice = <K extends string, const C extends string>(key: K, spec: Spec<ChoiceRow<K, C>>): ChoiceRow<K, C> => ({ key, type: 'choice', app, ...spec });
const list = <K extends string>(key: K, spec: Spec<ListRow<K>>): ListRow<K> => ({ key, type: 'list', app, ...spec });
const structured = <K extends string, V>(key: K, spec: Spec<StructuredRow<K, V>>): StructuredRow<K, V> => ({ key, type: 'structured', app, ...spec });
/** A row the app's renderer may not set, and why (a path the main process would read or run). */
const notFromApp = <R extends SettingRow>(row: R, refused: string, sentAs?: string): R & { app: { refused: string } } => ({
  ...row,
  app: (sentAs ? { refused, sentAs } : { refused }) as { refused: string },
});

const MAX_COUNT = Number.MAX_SAFE_INTEGER;
const DAY_S = 24 * 3600;
const WEEK_MS = 7 * DAY_S * 1000;
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const polite = POLITENESS_PRESETS.polite;
const resume = true;

/** Every crawl setting, in the order settingsProblems reports them. */
export const SETTING_ROWS = [
  string('name', {
    section: 'Crawl', default: 'crawl', maxLength: 200, label: 'Crawl name', resume,
    help: 'Written into every WARC file’s warcinfo record (isPartOf).',
    cli: { flag: '--name', arg: '<name>', help: 'crawl name (warcinfo isPartOf)', defaultText: 'the --out folder’s name' },
  }),
  list('seeds', {
    section: 'Crawl', default: [], itemMaxLength: 8192, maxItems: 100_000, label: 'Seeds', resume: false, check: 'seed-urls',
    help: 'The URLs the crawl starts from, one a line.',
    cli: { flag: '--seed', arg: '<url>', help: 'a seed URL (repeatable; same as giving it as an argument)', repeatable: true, append: true, crawlOnly: true },
  }),
  choice('scope', {
    section: 'Scope', default: 'prefix', choices: SCOPE_PRESET_NAMES, label: 'Scope', resume,
    help: 'Which discovered URLs the crawl follows, from the seeds.',
    cli: { flag: '--scope', arg: '<preset>', help: 'scope preset' },
  }),
  list('include', {
    section: 'Scope', default: [], itemMaxLength: 2000, maxItems: 1000, label: 'Include', resume, check: 'regex-lines',
    help: 'Regular expressions, one a line: a URL matching one is accepted too.',
    cli: { flag: '--include', arg: '<regex>', help: 'also accept URLs matching (repeatable)', repeatable: true },
  }),
  list('exclude', {
    section: 'Scope', default: [], itemMaxLength: 2000, maxItems: 1000, label: 'Exclude', resume, check: 'regex-lines',
    help: 'Regular expressions, one a line: a URL matching one is rejected, whatever else says.',
    cli: { flag: '--exclude', arg: '<regex>', help: 'reject URLs matching; exclusions always win (repeatable)', repeatable: true },
  }),
  number('maxHops', {
    section: 'Scope', default: 20, unit: 'count', min: 0, max: 1_000_000, whole: true, label: 'Max hops', resume,
    help: 'Link hops from a seed past which URLs are rejected (Heritrix: TooManyHopsDecideRule).',
    cli: { flag: '--max-hops', arg: '<n>', help: 'maximum link hops from a seed' },
  }),
  number('transHops', {
    section: 'Scope', default: 2, unit: 'count', min: 0, max: 100, whole: true, label: 'Embed hops off scope', resume,
    help: 'Embeds and redirects followed past the scope’s edge, so a page gets its images and stylesheets from other hosts (Heritrix: TransclusionDecideRule, max trans hops).',
    cli: { flag: '--trans-hops', arg: '<n>', help: 'embeds/redirects followed off-scope' },
  }),
  number('maxPathRepeats', {
    section: 'Scope', default: 2, unit: 'count', min: 0, max: 1_000_000, whole: true, label: 'Max path repeats', resume,
    help: 'A URL whose path repeats a segment more times than this is rejected, a guard against crawler traps (Heritrix: PathologicalPathDecideRule).',
    cli: { flag: '--max-path-repeats', arg: '<n>', help: 'reject a path segment repeated more than n times' },
  }),
  number('maxPathDepth', {
    section: 'Scope', default: 20, unit: 'count', min: 0, max: 1_000_000, whole: true, label: 'Max path depth', resume,
    help: 'URLs with more path segments than this are rejected (Heritrix: TooManyPathSegmentsDecideRule).',
    cli: { flag: '--max-path-depth', arg: '<n>', help: 'reject URLs with more path segments' },
  }),
  boolean('fetchLogoutUrls', {
    section: 'Scope', default: false, label: 'Follow log-out links', resume,
    help: 'Log-out links (logout, log-out, signout, sign-out, logoff in the path or query, and forms posting there) are never fetched unless this is on: fetching one would end the crawl’s login session.',
    cli: { flag: '--fetch-logout-urls', help: 'also fetch log-out links (by default URLs with logout, log-out, signout, sign-out or logoff in the path or query are rejected)' },
  }),
  number('maxUrlLength', {
    section: 'Scope', default: 2083, unit: 'count', min: 0, max: 1_000_000, whole: true, label: 'Max URL length', resume,
    help: 'Longer URLs are rejected (rule url-length in scope.log).',
    cli: { flag: '--max-url-length', arg: '<n>', help: 'reject URLs longer than n characters, rule url-length in scope.log' },
  }),
  structured('scopeRules', {
    section: 'Scope', default: [] as ScopeRuleConfig[], shape: 'scope-rule', maxItems: 1000, label: 'Extra scope rules', itemLabel: 'Scope rule', resume, check: 'scope-rules',
    help: 'Decide rules added to the scope preset: on-host, on-domain, regex, hops-path, file-type, MIME and content-length.',
    cli: { flag: '--scope-rule', arg: '<json>', help: 'an extra decide rule as JSON, e.g. {"type":"on-domain","domains":["example.org"],"decision":"ACCEPT"} (repeatable)', repeatable: true },
  }),
  choice('politeness', {
    section: 'Politeness', default: 'polite', choices: POLITENESS_PRESET_NAMES, sets: POLITENESS_PRESETS, label: 'Politeness', resume,
    help: 'A preset for the delay between fetches and the connections per host.',
    cli: { flag: '--politeness', arg: '<preset>', help: 'politeness preset: polite = Heritrix defaults' },
  }),
  number('concurrency', {
    section: 'Politeness', default: 8, unit: 'count', min: 1, max: 512, whole: true, label: 'Fetch slots', resume,
    help: 'Fetches in progress at once across the whole crawl (Heritrix: toe threads).',
    cli: { flag: '--concurrency', arg: '<n>', help: 'total fetch slots' },
  }),
  number('perHost', {
    section: 'Politeness', default: polite.perHost, unit: 'count', min: 1, max: 64, whole: true, label: 'Connections / host', resume,
    help: 'Fetches in flight at once to one queue (one host, or one ELFHash queue).',
    cli: { flag: '--per-host', arg: '<n>', help: 'fetches in flight per queue' },
  }),
  number('delayFactor', {
    section: 'Politeness', default: polite.delayFactor, unit: 'factor', min: 0, max: 1000, whole: false, label: 'Delay factor', resume,
    help: 'The wait after a fetch is this many times the fetch’s own duration, between the minimum and maximum delay.',
    cli: { flag: '--delay-factor', arg: '<x>', help: 'politeness: delay = factor × fetch time' },
  }),
  number('minDelayMs', {
    section: 'Politeness', default: polite.minDelayMs, unit: 'milliseconds', min: 0, max: WEEK_MS, whole: true, field: 'ms', label: 'Min delay', resume,
    help: 'The shortest wait between two fetches from one queue.',
    cli: { flag: '--min-delay-ms', arg: '<ms>', help: 'politeness minimum delay' },
  }),
  number('maxDelayMs', {
    section: 'Politeness', default: polite.maxDelayMs, unit: 'milliseconds', min: 0, max: WEEK_MS, whole: true, field: 'ms', label: 'Max delay', resume,
    notBelow: { key: 'minDelayMs', message: 'the maximum delay ({value} ms) is below the minimum ({other} ms)' },
    help: 'The longest wait between two fetches from one queue, however slow the fetch was.',
    cli: { flag: '--max-delay-ms', arg: '<ms>', help: 'politeness maximum delay' },
  }),
  number('crawlDelayCapS', {
    section: 'Politeness', default: 300, unit: 'seconds', min: 0, max: 7 * DAY_S, whole: true, field: 's', label: 'Crawl-delay cap', resume,
    help: 'A robots.txt Crawl-delay is honoured up to this long.',
    cli: { flag: '--crawl-delay-cap-s', arg: '<s>', help: 'honour robots Crawl-delay up to this' },
  }),
  number('maxKbpsPerHost', {
    section: 'Politeness', default: 0, unit: 'kbps', min: 0, max: MAX_COUNT, whole: false, zero: 'no cap', field: 'KB/s', label: 'Bandwidth / host', resume,
    help: 'Fetches from one host are slowed to this many KB a second; 0 = no cap.',
    cli: { flag: '--max-kbps-per-host', arg: '<kbps>', help: 'bandwidth cap per host' },
  }),
  structured('overrides', {
    section: 'Politeness', default: [] as HostOverride[], shape: 'host-override', maxItems: 1000, label: 'Per-host overrides', itemLabel: 'Override', resume, check: 'host-overrides',
    fields: ['minDelayMs', 'maxDelayMs', 'delayFactor', 'perHost', 'robots', 'userAgent', 'maxKbpsPerHost'],
    help: 'Other delays, connections or robots policy for particular hosts (your own server, a fragile one); the most specific wins.',
    cli: { flag: '--override', arg: '<spec>', help: 'per-host settings, e.g. host=example.org,min-delay-ms=500,per-host=2 (repeatable)', repeatable: true },
  }),
  string('queuePolicy', {
    section: 'Politeness', default: 'host', maxLength: 40, label: 'Queues', resume,
    pattern: { regex: '^(host|elfhash:[1-9]\\d{0,4})$', message: 'must be "host" or "elfhash:" and a number of queues' },
    help: 'One queue per host, or URLs spread over N queues by ELFHash (Heritrix’s HashingQueueAssignmentPolicy): several connections to one big site.',
    cli: { flag: '--queue-policy', arg: '<policy>', help: 'host (one queue per host) or elfhash:<n> (n queues per site: several connections to one server)' },
  }),
  choice('robots', {
    section: 'Robots', default: 'obey', choices: ROBOTS_POLICY_NAMES, label: 'Robots policy', resume,
    help: 'How robots.txt is honoured.',
    cli: { flag: '--robots', arg: '<policy>', help: 'robots policy' },
  }),
  notFromApp(optionalString('robotsFile', {
    section: 'Robots', maxLength: 4096, path: true, label: 'Custom robots.txt', resume,
    requiredWhen: { key: 'robots', is: 'custom', message: 'the custom robots policy needs a robots.txt file' },
    help: 'The robots.txt used instead of every site’s own (the custom policy).',
    cli: { flag: '--robots-file', arg: '<file>', help: 'robots.txt rules for --robots custom' },
  }), 'send the custom robots.txt as customRobots text', 'customRobots'),
  list('candidateAgents', {
    section: 'Robots', default: [], itemMaxLength: 1000, maxItems: 100, label: 'Other agents', resume,
    help: 'Agents tried after ours by the most-favored and first-named policies, one a line.',
    cli: { flag: '--candidate-agents', arg: '<list>', help: 'comma-separated agents for most-favored / first-named', commaList: true },
  }),
  boolean('masquerade', {
    section: 'Robots', default: false, label: 'Masquerade', resume,
    help: 'Send the User-Agent of the candidate agent robots.txt allowed.',
    cli: { flag: '--masquerade', help: 'send the user agent that robots.txt allowed' },
  }),
  number('robotsTtlS', {
    section: 'Robots', default: DAY_S, unit: 'seconds', min: 0, max: 365 * DAY_S, whole: true, field: 's', label: 'robots.txt cache time', resume,
    help: 'How long a host’s robots.txt is used before it is fetched again.',
    cli: { flag: '--robots-ttl', arg: '<s>', help: 'robots.txt cache time' },
  }),
  boolean('sitemaps', {
    section: 'Robots', default: false, label: 'Sitemaps', resume,
    help: 'Crawl the sitemaps robots.txt names and follow their entries (hop M, still in scope).',
    cli: { flag: '--sitemaps', help: 'crawl the sitemaps named in robots.txt and follow sitemap entries (hop M, still scoped)' },
  }),
  string('userAgent', {
    section: 'Identity', default: DEFAULT_USER_AGENT, maxLength: 1000, line: true, label: 'User agent', resume,
    help: 'The User-Agent header of every request; robots.txt is read for it.',
    cli: { flag: '--user-agent', arg: '<ua>', help: 'User-Agent header' },
  }),
  string('operator', {
    section: 'Identity', default: '', maxLength: 1000, label: 'Operator contact', resume,
    help: 'Written into every WARC file, so sites can reach you; an email address is also sent as From.',
    cli: { flag: '--operator', arg: '<contact>', help: 'operator contact (email: also sent as From)' },
  }),
  number('connectTimeoutS', {
    section: 'Fetching', default: 20, unit: 'seconds', min: 0.1, max: DAY_S, whole: false, field: 's', label: 'Connect timeout', resume,
    help: 'A connection not made in this time fails the fetch (−2).',
    cli: { flag: '--connect-timeout-s', arg: '<s>', help: 'connect timeout' },
  }),
  number('headersTimeoutS', {
    section: 'Fetching', default: 30, unit: 'seconds', min: 0.1, max: DAY_S, whole: false, field: 's', label: 'Head timeout', resume,
    help: 'The response head must arrive within this after the request.',
    cli: { flag: '--headers-timeout-s', arg: '<s>', help: 'the response head must arrive within this after the request' },
  }),
  number('idleTimeoutS', {
    section: 'Fetching', default: 60, unit: 'seconds', min: 0.1, max: DAY_S, whole: false, field: 's', label: 'Idle timeout', resume,
    help: 'No byte received for this long ends the fetch.',
    cli: { flag: '--idle-timeout-s', arg: '<s>', help: 'no byte received for this long ends the fetch' },
  }),
  number('fetchTimeoutS', {
    section: 'Fetching', default: 300, unit: 'seconds', min: 0.1, max: 7 * DAY_S, whole: false, field: 's', label: 'Fetch timeout', resume,
    help: 'A whole fetch taking longer than this ends (−4).',
    cli: { flag: '--fetch-timeout-s', arg: '<s>', help: 'whole-fetch timeout' },
  }),
  number('maxBodyBytes', {
    section: 'Fetching', default: GiB, unit: 'bytes', min: 0, max: MAX_COUNT, whole: true, field: 'MiB', label: 'Max body', resume,
    help: 'A response body past this size is truncated (WARC-Truncated: length).',
    cli: { flag: '--max-body-bytes', arg: '<size>', help: 'truncate bodies past this, WARC-Truncated: length' },
  }),
  number('maxHeaderBytes', {
    section: 'Fetching', default: 256 * 1024, unit: 'bytes', min: 1, max: 64 * MiB, whole: true, field: 'KiB', label: 'Max response head', resume,
    help: 'A longer response head is a protocol error (−50).',
    cli: { flag: '--max-header-bytes', arg: '<size>', help: 'a longer response head is a protocol error, -50' },
  }),
  number('maxExtractBytes', {
    section: 'Fetching', default: 32 * MiB, unit: 'bytes', min: 0, max: MAX_COUNT, whole: true, field: 'MiB', label: 'Max extracted', resume,
    help: 'Decompressed bytes of a body read for links.',
    cli: { flag: '--max-extract-bytes', arg: '<size>', help: 'decompressed bytes of a body fed to link extraction' },
  }),
  number('maxLinksPerDocument', {
    section: 'Fetching', default: 20000, unit: 'count', min: 0, max: MAX_COUNT, whole: true, label: 'Links per document', resume,
    help: 'Links kept from one document; past it the document is annotated links-capped.',
    cli: { flag: '--max-links-per-document', arg: '<n>', help: 'links kept per document, past it annotated links-capped' },
  }),
  number('maxRetries', {
    section: 'Fetching', default: 3, unit: 'count', min: 0, max: 1000, whole: true, label: 'Retries', resume,
    help: 'Retries of a URI after a DNS or connect failure, a timeout or a 5xx; 0 turns retries off.',
    cli: { flag: '--max-retries', arg: '<n>', help: 'retries for connect failures, timeouts and 5xx; --max-retries 0 turns retries off; --retry-delay-s sets the first wait' },
  }),
  number('retryDelayS', {
    section: 'Fetching', default: 10, unit: 'seconds', min: 0, max: 30 * DAY_S, whole: false, field: 's', label: 'First retry after', resume,
    help: 'The wait before the first retry; later ones double it, or keep it with the fixed backoff (Heritrix).',
    cli: { flag: '--retry-delay-s', arg: '<s>', help: 'wait before the first retry, doubled each time unless --retry-backoff fixed' },
  }),
  choice('retryBackoff', {
    section: 'Fetching', default: 'exponential', choices: RETRY_BACKOFF_NAMES, label: 'Then', resume,
    help: 'Whether each later retry waits twice as long as the one before, or the same.',
    cli: { flag: '--retry-backoff', arg: '<mode>', help: 'exponential doubles the wait before each retry; fixed keeps it' },
  }),
  number('warcMaxBytes', {
    section: 'WARC files', default: 1e9, unit: 'bytes', min: 1024, max: MAX_COUNT, whole: true, field: 'MB', label: 'Rotate at', resume,
    help: 'A WARC file is closed and a new one started once it passes this size.',
    cli: { flag: '--warc-max-bytes', arg: '<size>', help: 'rotate WARC files past this size' },
  }),
  number('warcGzipLevel', {
    // Level 4 by measurement (issue 40): per page record 153 µs against 214 at zlib's default 6
    // on the PostgreSQL docs' pages (+2.9% bytes), about half the CPU on the Python docs' (+7%);
    // level 1 saves 36 µs more for 11% larger members than 6. Each record stays its own member.
    section: 'WARC files', default: 4, unit: 'count', min: 0, max: 9, whole: true, label: 'Compression level', resume,
    help: 'zlib level of each record\'s gzip member: 1 is fastest, 9 smallest; 4 costs about a third less CPU than 6 for a few percent more bytes.',
    cli: { flag: '--warc-gzip-level', arg: '<0-9>', help: 'zlib level of the WARC records\' gzip members: 6 is zlib\'s own, 1 fastest, 9 smallest' },
  }),
  string('warcPrefix', {
    section: 'WARC files', default: 'TROVE', maxLength: 100, label: 'File prefix', resume,
    pattern: { regex: '^[A-Za-z0-9._-]+$', message: 'may hold only letters, digits, ".", "_" and "-"' },
    help: 'WARC file names start with this.',
    cli: { flag: '--warc-prefix', arg: '<prefix>', help: 'WARC file name prefix' },
  }),
  choice('dedup', {
    section: 'WARC files', default: 'digest', choices: DEDUP_MODE_NAMES, label: 'Duplicates', resume,
    help: 'A payload already archived is written as a short revisit record instead of again in full (digest: same payload anywhere; url: same URL and payload).',
    cli: { flag: '--dedup', arg: '<mode>', help: 'write revisit records for duplicate payloads' },
  }),
  boolean('revisitAlone', {
    section: 'WARC files', default: false, label: 'Revisits alone', resume,
    help: 'Write a revisit of the same URL (a page unchanged since an earlier crawl) without its request record (it never has a metadata record): about half the bytes, but the conditional request sent is not kept (crawl.log keeps its hops and timing).',
    cli: { flag: '--revisit-alone', help: 'write same-URL revisits without their request records (about half the bytes; the request sent is not kept)' },
  }),
  notFromApp(list('dedupFrom', {
    section: 'WARC files', default: [], itemMaxLength: 4096, maxItems: 1000, path: true, label: 'Deduplicate against', resume, check: 'existing-paths',
    help: 'Earlier crawls (folders) or CDXJ files whose captures count as already archived.',
    cli: { flag: '--dedup-from', arg: '<source>', help: 'an earlier crawl directory or CDXJ file: its payloads become revisits, its URLs are fetched conditionally (repeatable)', repeatable: true },
  }), 'not settable from the app'),
  number('limitPages', {
    section: 'Limits', default: 0, unit: 'count', min: 0, max: MAX_COUNT, whole: true, zero: 'no limit', label: 'Page limit', resume,
    help: 'Capture at most this many pages (HTML documents reached by links), then what they still need; pages held back stay queued for a resume with a higher limit; 0 = no limit.',
    cli: {
      flag: '--limit-pages',
      arg: '<n>',
      help: 'capture at most n pages (HTML documents reached by links), then fetch what those pages still need (stylesheets, images, redirects) and finish; pages held back stay queued for `trove resume --limit-pages <higher>`',
      clear: 'resume: clear the page limit',
    },
  }),
  number('limitUris', {
    section: 'Limits', default: 0, unit: 'count', min: 0, max: MAX_COUNT, whole: true, zero: 'no limit', label: 'URI limit', resume,
    help: 'Stop after this many fetches of any kind, robots.txt included; 0 = no limit.',
    cli: { flag: '--limit-uris', arg: '<n>', help: 'stop after n fetches of any kind, robots.txt included (a crawl that reads robots.txt needs 2 or more to reach a page)', clear: 'resume: clear the URI limit' },
  }),
  number('limitBytes', {
    section: 'Limits', default: 0, unit: 'bytes', min: 0, max: MAX_COUNT, whole: true, zero: 'no limit', field: 'MB', label: 'Download limit', resume,
    help: 'Stop after this much is downloaded; 0 = no limit.',
    cli: { flag: '--limit-bytes', arg: '<size>', help: 'stop after this many bytes downloaded', clear: 'resume: clear the byte limit' },
  }),
  number('limitTimeS', {
    section: 'Limits', default: 0, unit: 'seconds', min: 0, max: MAX_COUNT, whole: true, zero: 'no limit', field: 'min', label: 'Time limit', resume,
    help: 'Stop after the crawl has run this long (paused time does not count); 0 = no limit.',
    cli: { flag: '--limit-time', arg: '<s>', help: 'stop after this much running time (paused time does not count)', clear: 'resume: clear the time limit' },
  }),
  number('maxTotalWarcBytes', {
    section: 'Limits', default: 0, unit: 'bytes', min: 0, max: MAX_COUNT, whole: true, zero: 'no limit', field: 'MB', label: 'WARC total', resume,
    help: 'Stop once the WARC files together reach this size; 0 = no limit.',
    cli: { flag: '--max-total-warc-bytes', arg: '<size>', help: 'stop once the WARCs reach this size' },
  }),
  number('minFreeDiskBytes', {
    section: 'Limits', default: GiB, unit: 'bytes', min: 0, max: MAX_COUNT, whole: true, zero: 'no check', field: 'GiB', label: 'Min free disk', resume,
    help: 'The crawl pauses when the disk’s free space falls under this; 0 = no check.',
    cli: { flag: '--min-free-disk', arg: '<size>', help: 'pause when free disk falls under this' },
  }),
  optionalString('profile', {
    section: 'Login', maxLength: 64, line: true, label: 'Browser profile', resume,
    pattern: { regex: PROFILE_NAME.source, message: 'must be a profile name (letters, digits, . _ -)' },
    help: 'A saved login (trove profile create): its cookies go with every matching request, and browser tabs start from it.',
    cli: { flag: '--profile', arg: '<name>', help: 'crawl logged in: a browser profile of the library (trove profile list)' },
  }),
  notFromApp(optionalString('cookiesFile', {
    section: 'Login', maxLength: 4096, path: true, label: 'Cookies file', resume, check: 'cookies-file',
    help: 'A Netscape cookies.txt (as wget, curl and yt-dlp write it) whose cookies go with every matching request.',
    cli: { flag: '--cookies', arg: '<file>', help: 'send the cookies of a Netscape cookies.txt (wget, curl, yt-dlp) with matching requests' },
  }), 'a file the main process would read'),
  boolean('saveProfile', {
    section: 'Login', default: false, label: 'Refresh the profile after the crawl', resume,
    help: 'When the crawl ends, the profile keeps the cookies the site set during it (a refreshed session); in browser capture also what the tabs held: cookies set by scripts, localStorage and sessionStorage.',
    cli: { flag: '--save-profile', help: 'refresh --profile with the cookies the site set during the crawl (browser capture: and the tabs\' cookies and storage)' },
  }),
  optionalString('loggedInCheck', {
    section: 'Login', maxLength: 1000, line: true, label: 'Logged-in check', resume,
    help: 'Text or a CSS selector (#id, .class, [attr]) every page of the login’s site shows when logged in; a page without it counts as logged out and pauses the crawl. Pages captured in the browser are checked as rendered.',
    cli: { flag: '--logged-in-check', arg: '<text|selector>', help: 'a page of the login’s site lacking this text or CSS selector (browser capture: in the rendered page) pauses the crawl as logged out' },
  }),
  boolean('redactCredentials', {
    section: 'Login', default: false, label: 'Redact credentials', resume,
    help: 'Request records get a fixed marker instead of the values of Cookie, Authorization and Proxy-Authorization, so the archive can be shared without the session.',
    cli: { flag: '--redact-credentials', help: 'write a marker instead of Cookie/Authorization values in request records' },
  }),
  choice('mediaRenditions', {
    section: 'Browser capture', default: 'used', choices: MEDIA_RENDITION_NAMES, label: 'Stream renditions', resume,
    help: 'For an HLS or DASH stream: every segment of each rendition the page’s player used and of the one ReplayWeb.page and pywb keep on replay (used), or of every rendition (all). A crawl without a browser has no player, so it queues every rendition either way.',
    cli: { flag: '--media-renditions', arg: '<which>', help: 'HLS/DASH streams: every segment of the renditions the player used and of the one replay tools keep (used), or of all renditions (all); HTTP-only crawls have no player and always queue all' },
  }),
  number('maxMediaBytes', {
    section: 'Browser capture', default: GiB, unit: 'bytes', min: 0, max: MAX_COUNT, whole: true, field: 'MiB', label: 'Max media file', resume,
    help: 'A whole audio or video file (or stream segment) fetched beside a browser page, or an audio or video response of an HTTP crawl, is cut past this size (WARC-Truncated: length, logged −51 or media-limit:resource).',
    cli: { flag: '--max-media-bytes', arg: '<size>', help: 'per media file (fetched whole beside a browser page, or an audio/video response over HTTP): cut past this, WARC-Truncated: length, logged -51 or media-limit:resource' },
  }),
  number('maxPageMediaBytes', {
    section: 'Browser capture', default: 4 * GiB, unit: 'bytes', min: 0, max: MAX_COUNT, whole: true, field: 'MiB', label: 'Max media per page', resume,
    help: 'All the media Trove fetches whole beside one browser page together: past this, the file being fetched is cut and the rest not fetched (logged −51).',
    cli: { flag: '--max-page-media-bytes', arg: '<size>', help: 'all media fetched whole beside one browser page: past this the file is cut and the rest skipped, logged -51' },
  }),
  choice('capture', {
    section: 'Browser capture', default: 'http', choices: CAPTURE_MODE_NAMES, label: 'Capture pages with a browser', resume,
    help: 'Off: every page over HTTP. Automatic: pages over HTTP, and in a browser those whose kind of page shows more links or text when rendered. Every page: seeds and pages in browser tabs.',
    cli: {
      flag: '--capture',
      arg: '<mode>',
      help: 'http: every page over HTTP; auto: every page over HTTP first, and in Chromium the pages whose template (host and DOM skeleton) shows more in-scope links or text when a sample is rendered, or whose body shows an empty app root, <noscript> words or scripts without text (crawl.log says rendered:<reason>); browser: seeds and pages in Chromium tabs, like --browser',
    },
  }),
  boolean('browser.enabled', {
    section: 'Browser capture', default: false, label: 'Every page in a browser (old setting)', resume,
    help: 'The setting from before Capture pages with a browser had three choices: on is the same as Every page, unless that one says Automatic.',
    cli: { flag: '--browser', help: 'same as --capture browser: load seeds and pages in Chromium tabs (script-built content, lazy images, fonts…); embeds and everything else by HTTP' },
  }),
  notFromApp(optionalString('browser.path', {
    section: 'Browser capture', maxLength: 4096, label: 'Browser executable', resume, check: 'existing-file-if-enabled',
    help: 'The Chromium or Chrome to run; found on the system when not given.',
    cli: { flag: '--browser-path', arg: '<path>', help: 'the Chromium or Chrome executable for --browser (else $TROVE_CHROMIUM, then the usual install paths)', implies: { key: 'browser.enabled', value: true } },
  }), 'an executable the app would run'),
  number('browser.tabs', {
    section: 'Browser capture', default: 2, unit: 'count', min: 1, max: 16, whole: true, label: 'Tabs', resume,
    help: 'Browser tabs at once; each is one connection to its page’s host.',
    cli: { flag: '--browser-tabs', arg: '<n>', help: 'browser tabs at once, each one connection to its page\'s host', implies: { key: 'browser.enabled', value: true } },
  }),
  number('browserSettleMs', {
    section: 'Browser capture', default: 100, unit: 'milliseconds', min: 0, max: 500, whole: true, label: 'Settle time', resume,
    help: 'After each step of a page (load, scroll, click), nothing in flight and no short timer pending for this long means the page is done; 500 ms of quiet is enough whatever its timers.',
    cli: { flag: '--browser-settle-ms', arg: '<ms>', help: 'a page step is done once nothing was in flight and no short timer pending for this long (at most 500 ms, the quiet that ends a step whatever its timers)' },
  }),
  number('browserStepMaxS', {
    section: 'Browser capture', default: 10, unit: 'seconds', min: 1, max: 10, whole: true, label: 'Step budget', resume,
    help: 'Longest wait for a page to go quiet after one step (a page that polls for ever moves on).',
    cli: { flag: '--browser-step-max', arg: '<s>', help: 'longest wait for a page to go quiet after one step' },
  }),
  number('browserScrollMaxS', {
    section: 'Browser capture', default: 30, unit: 'seconds', min: 0, max: 30, whole: true, label: 'Scroll budget', resume,
    help: 'Longest time spent scrolling one page (only pages taller than the window that load on scroll are scrolled); 0 = no scrolling.',
    cli: { flag: '--browser-scroll-max', arg: '<s>', help: 'longest time spent scrolling one page; 0 = no scrolling' },
  }),
  number('browserMaxClicks', {
    section: 'Browser capture', default: 20, unit: 'count', min: 0, max: 20, whole: true, label: '“Load more” clicks', resume,
    help: 'Most “load more” buttons pressed on one page; 0 = none.',
    cli: { flag: '--browser-max-clicks', arg: '<n>', help: 'most "load more" buttons pressed on one page; 0 = none' },
  }),
];

// ── the CrawlSettings shape, derived from the rows ──

type AnyRow = (typeof SETTING_ROWS)[number];
type ValueOfRow<R> = R extends { type: 'number' }
  ? number
  : R extends { type: 'string' }
    ? string
    : R extends { type: 'boolean' }
      ? boolean
      : R extends { type: 'choice'; choices: readonly (infer C)[] }
        ? C
        : R extends { type: 'list' }
          ? string[]
          : R extends { type: 'structured'; default: infer V }
            ? V
            : never;
type Optional = { optional: true };
type TopKey<R> = R extends { key: infer K extends string } ? (K extends `${string}.${string}` ? never : K) : never;
type SubKey<R, G extends string> = R extends { key: `${G}.${infer S}` } ? S : never;
type GroupOf<R> = R extends { key: `${infer G}.${string}` } ? G : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
type Group<G extends string> = Simplify<
  { [R in AnyRow as R extends Optional ? never : SubKey<R, G>]: ValueOfRow<R> } & { [R in AnyRow as R extends Optional ? SubKey<R, G> : never]?: ValueOfRow<R> }
>;

/** CrawlSettings as the rows make it: a nested group (`browser.tabs`) is an object of its own. */
export type SettingsShape = { [R in AnyRow as R extends Optional ? never : TopKey<R>]: ValueOfRow<R> } & {
  [R in AnyRow as R extends Optional ? TopKey<R> : never]?: ValueOfRow<R>;
} & { [G in GroupOf<AnyRow>]: Group<G> };
export type SettingKey = AnyRow['key'];
/** The settings the app's renderer may not send (their rows say why). */
export type NotFromAppKey = Extract<AnyRow, { app: { refused: string } }>['key'];

/**
 * The row of a setting key (`limitPages`, `browser.tabs`), or of the field the app sends in a
 * setting's place (`customRobots`); undefined for one that is not a setting.
 */
export function settingRow(key: string): SettingRow | undefined {
  return ROW_BY_KEY.get(key);
}
const ROW_BY_KEY = new Map<string, SettingRow>(
  (SETTING_ROWS as readonly SettingRow[]).flatMap((r) => [[r.key, r] as const, ...(r.app !== true && r.app.sentAs ? [[r.app.sentAs, r] as const] : [])]),
);
