/**
 * A page's capture-time reference: the screenshot (`urn:view:`) and text (`urn:text:`) records a
 * browser capture (a browser crawl, the Record window, a Browsertrix crawl) wrote beside the page.
 * A Trove browser crawl keeps the page's text (innerText after the behaviors) in the archive's
 * page-text index rather than a `urn:text:` record: with a capture screenshot and no text
 * record, that text is the reference (without a screenshot the indexed text is what an HTTP
 * crawl extracted from the HTML, not what a browser showed, and is not used).
 * Null when the page has no screenshot and no text record: it was fetched over HTTP, or imported
 * from a tool that keeps none.
 */
import type { Archive } from '../archive/archive-dir.ts';
import { pageResourceBytes } from '../archive/page-screenshot.ts';
import { SCREENSHOT_URN_PREFIX, TEXT_URN_PREFIX } from '../formats/page-resource-urns.ts';

export interface PageReference {
  screenshot: Buffer | null;
  text: string | null;
}

const TEXT_MAX_BYTES = 4 << 20;

export async function captureReference(archive: Archive, pageId: number): Promise<PageReference | null> {
  const screenshot = await pageResourceBytes(archive, pageId, SCREENSHOT_URN_PREFIX);
  const text = await pageResourceBytes(archive, pageId, TEXT_URN_PREFIX, TEXT_MAX_BYTES);
  if (!screenshot && !text) return null;
  const indexed = !text && screenshot ? archive.index.pageText(pageId) : null;
  return { screenshot: screenshot && isPng(screenshot) ? screenshot : null, text: text ? text.toString('utf8') : indexed };
}

function isPng(b: Buffer): boolean {
  return b.length > 8 && b.readUInt32BE(0) === 0x89504e47;
}
