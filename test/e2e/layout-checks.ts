/**
 * Layout assertions shared by the e2e files: a control is "cut off" when it lies (partly)
 * outside the viewport horizontally, or when an ancestor that clips (overflow other than
 * visible) hides part of it. Vertical position is not checked: screens scroll vertically.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export async function cutOffControls(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const out: string[] = [];
    const vw = document.documentElement.clientWidth;
    for (const el of document.querySelectorAll<HTMLElement>(sel)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue; // not rendered
      const name = (el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? el.textContent ?? el.tagName).trim().slice(0, 40);
      if (r.left < -0.5 || r.right > vw + 0.5) {
        out.push(`${name}: outside the window (${Math.round(r.left)}…${Math.round(r.right)} of ${vw})`);
        continue;
      }
      for (let p = el.parentElement; p; p = p.parentElement) {
        const cs = getComputedStyle(p);
        if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
        const pr = p.getBoundingClientRect();
        // A scrolling ancestor that needs horizontal scrolling to show the control counts as cutting it.
        if (r.left < pr.left - 0.5 || r.right > pr.right + 0.5) {
          out.push(`${name}: clipped by ${p.tagName.toLowerCase()}.${[...p.classList].join('.')} (${Math.round(r.left)}…${Math.round(r.right)} in ${Math.round(pr.left)}…${Math.round(pr.right)})`);
          break;
        }
      }
      // Text wider than its box (a cut label): the element scrolls or clips its own content.
      if (el.tagName === 'SELECT' || el.tagName === 'BUTTON') {
        if (el.scrollWidth > el.clientWidth + 1) out.push(`${name}: label cut (${el.scrollWidth} > ${el.clientWidth})`);
      }
    }
    return out;
  }, selector);
}

export async function expectNothingCutOff(page: Page, selector: string): Promise<void> {
  expect(await cutOffControls(page, selector)).toEqual([]);
}

/**
 * Text fields and selects narrower than `minPx` (a control squeezed by a neighbour in its grid):
 * each as "name: N px", named by its label's text or test id.
 */
export async function narrowFields(page: Page, selector: string, minPx: number): Promise<string[]> {
  return page.evaluate(
    ([sel, min]) => {
      const out: string[] = [];
      for (const el of document.querySelectorAll<HTMLElement>(sel)) {
        const w = el.getBoundingClientRect().width;
        if (w === 0 || (el as HTMLInputElement).type === 'checkbox' || (el as HTMLInputElement).type === 'radio' || (el as HTMLInputElement).type === 'file') continue;
        const name = (el.closest('label')?.querySelector('span')?.textContent ?? el.getAttribute('data-testid') ?? el.tagName).trim();
        if (w < min) out.push(`${name}: ${Math.round(w)} px`);
      }
      return out;
    },
    [selector, minPx] as const,
  );
}
