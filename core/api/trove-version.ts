/**
 * Trove's version and the User-Agent it sends by default: written into warcinfo records, WACZ
 * packages and `trove --version`, and the default of the userAgent setting.
 */
export const TROVE_VERSION = '0.1.0';
export const DEFAULT_USER_AGENT = `Mozilla/5.0 (compatible; Trove/${TROVE_VERSION}; +https://github.com/trove-archive/trove)`;
