/**
 * Rules a crawl config can add to the default sequence (Heritrix's OnHost/OnDomain,
 * MatchesRegex, HopsPathMatchesRegex, MatchesFilePattern, ContentTypeMatchesRegex and
 * ResponseContentLength decide rules), and the after-fetch decision that uses the last two.
 */
import { domainToASCII } from 'node:url';
import { TroveError } from '../errors.ts';
import { compileRegex } from './standard-rules.ts';
import type { Decision, DecideRule, ExtraRuleConfig, FileTypePreset, RuleAnswer, RuleDecision, TraceEntry } from './scope-types.ts';

/** Lowercase extensions per preset (no dot). */
export const FILE_TYPE_PRESETS: Record<FileTypePreset, readonly string[]> = {
  images: ['jpg', 'jpeg', 'png', 'gif', 'webp', 'avif', 'svg', 'bmp', 'ico', 'tif', 'tiff', 'heic'],
  audio: ['mp3', 'wav', 'ogg', 'oga', 'opus', 'flac', 'm4a', 'aac', 'wma', 'mid', 'midi'],
  video: ['mp4', 'm4v', 'webm', 'mov', 'avi', 'mkv', 'wmv', 'flv', 'mpg', 'mpeg', 'ogv', '3gp', 'm3u8'],
  documents: ['pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'odp', 'rtf', 'txt', 'csv', 'epub'],
};

const AFTER_FETCH_TYPES = new Set(['mime', 'content-length']);

export function isAfterFetchRule(config: ExtraRuleConfig): boolean {
  return AFTER_FETCH_TYPES.has(config.type);
}

/** A pre-fetch rule from its config. Throws SCOPE_BAD_RULE / SCOPE_BAD_REGEX on a bad config. */
export function buildExtraRule(config: ExtraRuleConfig): DecideRule {
  const decision = checkDecision(config);
  const verdict = (reason: string): RuleAnswer => ({ result: decision, reason });
  const pass = (reason: string): RuleAnswer => ({ result: 'PASS', reason });
  switch (config.type) {
    case 'on-host': {
      const hosts = new Set(stringList(config, 'hosts', config.hosts).map(asciiHost));
      return {
        name: 'on-host',
        describe: () => `on-host: ${decision} URLs on ${[...hosts].join(', ')}`,
        decide: ({ url }) => (url && hosts.has(url.hostname) ? verdict(`host ${url.hostname} is listed`) : pass('host not listed')),
      };
    }
    case 'on-domain': {
      const domains = stringList(config, 'domains', config.domains).map(asciiHost);
      return {
        name: 'on-domain',
        describe: () => `on-domain: ${decision} URLs on ${domains.join(', ')} and their subdomains`,
        decide: ({ url }) => {
          const d = url ? domains.find((dom) => url.hostname === dom || url.hostname.endsWith(`.${dom}`)) : undefined;
          return d ? verdict(`host ${url!.hostname} is in domain ${d}`) : pass('not in a listed domain');
        },
      };
    }
    case 'regex': {
      const re = compileRegex(config.pattern, 'rules[regex]');
      return {
        name: 'regex',
        describe: () => `regex: ${decision} URLs matching ${String(re)}`,
        decide: ({ href }) => (re.test(href) ? verdict(`matched ${String(re)}`) : pass(`did not match ${String(re)}`)),
      };
    }
    case 'hops-path': {
      const re = compileRegex(config.pattern, 'rules[hops-path]');
      return {
        name: 'hops-path',
        describe: () => `hops-path: ${decision} URLs whose hops path matches ${String(re)}`,
        decide: ({ candidate }) =>
          re.test(candidate.hopsPath)
            ? verdict(`hops path "${candidate.hopsPath}" matched ${String(re)}`)
            : pass(`hops path "${candidate.hopsPath}" did not match ${String(re)}`),
      };
    }
    case 'file-type': {
      const extensions = fileTypeExtensions(config);
      return {
        name: 'file-type',
        describe: () => `file-type: ${decision} URLs ending in ${[...extensions].map((e) => `.${e}`).join(' ')}`,
        decide: ({ url }) => {
          const ext = url ? extensionOf(url.pathname) : null;
          return ext && extensions.has(ext) ? verdict(`extension .${ext}`) : pass(ext ? `extension .${ext} not listed` : 'no extension');
        },
      };
    }
    case 'mime':
    case 'content-length':
      throw new TroveError('SCOPE_BAD_RULE', `Rule type ${config.type} applies after fetch; use decideAfterFetch`, { config });
    default:
      throw new TroveError('SCOPE_BAD_RULE', `Unknown scope rule type: ${String((config as { type?: unknown }).type)}`, { config });
  }
}

export interface FetchedInfo {
  mime?: string | null;
  contentLength?: number | null;
}

export interface AfterFetchRule {
  name: string;
  describe(): string;
  decide(info: FetchedInfo): RuleAnswer;
}

const compiled = new WeakMap<readonly ExtraRuleConfig[], AfterFetchRule[]>();

/**
 * Judge a fetched response with the `mime` and `content-length` rules of `rules` (the others are
 * ignored): the last non-PASS answer wins. Returns null when no such rule had an opinion, which
 * means: keep the decision made before the fetch.
 */
export function decideAfterFetch(rules: readonly ExtraRuleConfig[], info: FetchedInfo): Decision | null {
  const built = compileAfterFetchRules(rules);
  const trace: TraceEntry[] = [];
  let last = -1;
  built.forEach((rule, i) => {
    const answer = rule.decide(info);
    trace.push({ rule: rule.name, result: answer.result, reason: answer.reason });
    if (answer.result !== 'PASS') last = i;
  });
  if (last < 0) return null;
  const deciding = trace[last]!;
  const decision = deciding.result as RuleDecision;
  return {
    decision,
    rule: deciding.rule,
    reason: `${decision} by ${deciding.rule}: ${deciding.reason} (after-fetch rule ${last + 1})`,
    trace,
  };
}

/** Build (once per rules array) and validate the after-fetch rules; throws SCOPE_BAD_RULE / SCOPE_BAD_REGEX. */
export function compileAfterFetchRules(rules: readonly ExtraRuleConfig[]): AfterFetchRule[] {
  let built = compiled.get(rules);
  if (!built) {
    built = rules.filter(isAfterFetchRule).map(buildAfterFetchRule);
    compiled.set(rules, built);
  }
  return built;
}

/** Describe the after-fetch rules of a config, for warcinfo and the UI. */
export function describeAfterFetchRules(rules: readonly ExtraRuleConfig[]): string[] {
  return compileAfterFetchRules(rules).map((r) => r.describe());
}

function buildAfterFetchRule(config: ExtraRuleConfig): AfterFetchRule {
  const decision = checkDecision(config);
  if (config.type === 'mime') {
    const re = compileRegex(config.pattern, 'rules[mime]');
    return {
      name: 'mime',
      describe: () => `mime (after fetch): ${decision} responses whose MIME type matches ${String(re)}`,
      decide: ({ mime }) => {
        if (!mime) return { result: 'PASS', reason: 'no MIME type' };
        return re.test(mime) ? { result: decision, reason: `${mime} matched ${String(re)}` } : { result: 'PASS', reason: `${mime} did not match ${String(re)}` };
      },
    };
  }
  if (config.type === 'content-length') {
    const { over, under } = config;
    for (const [k, v] of [['over', over], ['under', under]] as const) {
      if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
        throw new TroveError('SCOPE_BAD_RULE', `content-length: ${k} must be a number of bytes ≥ 0`, { config });
      }
    }
    if (over === undefined && under === undefined) {
      throw new TroveError('SCOPE_BAD_RULE', 'content-length: give `over` or `under` (bytes)', { config });
    }
    return {
      name: 'content-length',
      describe: () => `content-length (after fetch): ${decision} responses that ${lengthCondition(config)}`,
      decide: ({ contentLength }) => {
        if (contentLength === null || contentLength === undefined) return { result: 'PASS', reason: 'length unknown' };
        if (over !== undefined && contentLength > over) return { result: decision, reason: `${contentLength} bytes > ${over}` };
        if (under !== undefined && contentLength < under) return { result: decision, reason: `${contentLength} bytes < ${under}` };
        return { result: 'PASS', reason: `${contentLength} bytes ${lengthCondition(config).replace('are', 'not')}` };
      },
    };
  }
  throw new TroveError('SCOPE_BAD_RULE', `Rule type ${config.type} is not an after-fetch rule`, { config });
}

function lengthCondition(c: { over?: number; under?: number }): string {
  const parts: string[] = [];
  if (c.over !== undefined) parts.push(`over ${c.over} bytes`);
  if (c.under !== undefined) parts.push(`under ${c.under} bytes`);
  return `are ${parts.join(' or ')}`;
}

function checkDecision(config: ExtraRuleConfig): RuleDecision {
  if (!config || typeof config !== 'object') throw new TroveError('SCOPE_BAD_RULE', 'A scope rule must be an object', { config });
  const d = (config as { decision?: unknown }).decision;
  if (d !== 'ACCEPT' && d !== 'REJECT') {
    throw new TroveError('SCOPE_BAD_RULE', `Scope rule ${String(config.type)} needs decision ACCEPT or REJECT, got ${String(d)}`, { config });
  }
  return d;
}

function stringList(config: ExtraRuleConfig, field: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string' && v.length > 0)) {
    throw new TroveError('SCOPE_BAD_RULE', `Scope rule ${config.type} needs a non-empty list of strings in ${field}`, { config });
  }
  return value as string[];
}

/** `Bücher.example` → `xn--bcher-kva.example`, so configs match WHATWG hostnames. */
function asciiHost(host: string): string {
  const trimmed = host.trim().replace(/^\.+|\.+$/g, '').toLowerCase();
  return domainToASCII(trimmed) || trimmed;
}

function fileTypeExtensions(config: Extract<ExtraRuleConfig, { type: 'file-type' }>): Set<string> {
  const out = new Set<string>();
  for (const preset of config.presets ?? []) {
    const list = FILE_TYPE_PRESETS[preset];
    if (!list) throw new TroveError('SCOPE_BAD_RULE', `Unknown file-type preset: ${String(preset)}`, { config });
    for (const e of list) out.add(e);
  }
  for (const e of config.extensions ?? []) out.add(e.replace(/^\./, '').toLowerCase());
  if (out.size === 0) throw new TroveError('SCOPE_BAD_RULE', 'file-type: give presets or extensions', { config });
  return out;
}

function extensionOf(pathname: string): string | null {
  const m = /\.([A-Za-z0-9]{1,8})$/.exec(pathname);
  return m ? m[1]!.toLowerCase() : null;
}
