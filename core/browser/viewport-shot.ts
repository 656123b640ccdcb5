/**
 * A screenshot of what the viewport shows, at a scale of its CSS size, scaled and PNG-encoded
 * once by the browser (with its fast zlib level). One home for how a page is photographed, so
 * the capture-time screenshot (`urn:view:`) and QA's replay screenshot of the same page are made
 * the same way and can be compared pixel for pixel.
 */
import type { CdpSession } from './cdp-session.ts';

export interface ViewportBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The viewport's position and size in CSS pixels, as the page sees them. */
export const VIEWPORT_BOX = '({ x: scrollX, y: scrollY, width: innerWidth, height: innerHeight })';

export async function viewportShot(session: CdpSession, v: ViewportBox, scale: number): Promise<Buffer> {
  const clip = { x: v.x, y: v.y, width: v.width, height: v.height, scale };
  const shot = await session.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true, clip });
  return Buffer.from(shot.data, 'base64');
}

/** A PNG's width and height from its IHDR chunk (bytes 16–23), or null when it is not a PNG. */
export function pngSize(png: Buffer): { width: number; height: number } | null {
  if (png.length < 24 || png.readUInt32BE(0) !== 0x89504e47 || png.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
