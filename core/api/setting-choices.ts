/**
 * The named choices of the crawl settings and the shapes of their structured values (extra scope
 * rules, per-host overrides): a leaf under both the registry (settings-registry.ts), whose rows
 * name them, and settings.ts, which re-exports them, so neither imports the other.
 */

/** The named choices, each listed once. */
export const SCOPE_PRESET_NAMES = ['page', 'prefix', 'host', 'domain', 'any'] as const;
export const ROBOTS_POLICY_NAMES = ['obey', 'ignore', 'custom', 'most-favored', 'first-named'] as const;
export const POLITENESS_PRESET_NAMES = ['polite', 'moderate', 'fast'] as const;
export const DEDUP_MODE_NAMES = ['off', 'url', 'digest'] as const;
export const RETRY_BACKOFF_NAMES = ['exponential', 'fixed'] as const;
/** A browser profile's name (the `profile` setting, `trove profile`): what a person types, safe as one directory name. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MEDIA_RENDITION_NAMES = ['used', 'all'] as const;
/** How pages are fetched: over HTTP only, in a browser when evidence says they need one, or all in a browser. */
export const CAPTURE_MODE_NAMES = ['http', 'auto', 'browser'] as const;


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
  robots?: (typeof ROBOTS_POLICY_NAMES)[number];
  userAgent?: string;
  maxKbpsPerHost?: number;
}

