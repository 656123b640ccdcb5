/**
 * A page's capture-time reference: the screenshot (`urn:view:`) and text (`urn:text:`) records a
 * browser capture (a browser crawl, the Record window, a Browsertrix crawl) wrote beside the page.
 * Null when the page has neither: it was fetched over HTTP, or imported from a tool that keeps none.
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
  return { screenshot: screenshot && isPng(screenshot) ? screenshot : null, text: text ? text.toString('utf8') : null };
}

function isPng(b: Buffer): boolean {
  return b.length > 8 && b.readUInt32BE(0) === 0x89504e47;
}
