/**
 * The target URIs of the `resource` records a browser capture writes beside a page, as
 * Browsertrix Crawler names them (src/util/warcresourcewriter.ts): `urn:view:<page URL>` for the
 * viewport screenshot, `urn:text:<page URL>` for the extracted text. Here, below both the browser
 * capture that writes them and the archive that finds them again.
 */
export const SCREENSHOT_URN_PREFIX = 'urn:view:';
export const TEXT_URN_PREFIX = 'urn:text:';
