/**
 * The compare view's screenshot overlay: two PNG screenshots of a page at two crawls are compared
 * as QA compares a replay with its capture (pixelmatch through qa/qa-score.ts), and the diff image
 * decodes as a PNG of their size; anything but two PNGs gives no overlay, never an error.
 */
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { screenshotDiff } from '../../core/app/handlers/series-handlers.ts';

/** A 40×20 white PNG as a data: URL, with a black block of `w` columns at the left. */
function shot(w: number): string {
  const png = new PNG({ width: 40, height: 20 });
  for (let y = 0; y < 20; y++) {
    for (let x = 0; x < 40; x++) {
      const i = (y * 40 + x) * 4;
      const v = x < w ? 0 : 255;
      png.data[i] = png.data[i + 1] = png.data[i + 2] = v;
      png.data[i + 3] = 255;
    }
  }
  return 'data:image/png;base64,' + PNG.sync.write(png).toString('base64');
}

describe('the compare view’s screenshot diff', () => {
  it('scores two screenshots and draws where they differ', () => {
    const same = screenshotDiff(shot(10), shot(10))!;
    expect(same.score).toBe(1);
    const d = screenshotDiff(shot(10), shot(20))!;
    // 10 of 40 columns differ.
    expect(d.score).toBeCloseTo(0.75, 5);
    const img = PNG.sync.read(Buffer.from(d.image.slice('data:image/png;base64,'.length), 'base64'));
    expect([img.width, img.height]).toEqual([40, 20]);
  });

  it('gives no overlay unless both sides are PNG screenshots', () => {
    expect(screenshotDiff(null, shot(1))).toBeNull();
    expect(screenshotDiff('data:image/jpeg;base64,/9j/4AAQ', shot(1))).toBeNull();
    expect(screenshotDiff('data:image/png;base64,bm90IGEgcG5n', shot(1))).toBeNull();
  });
});
