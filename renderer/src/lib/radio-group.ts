/**
 * The WAI-ARIA radio-group keyboard pattern for every `role="radiogroup"` of `role="radio"`
 * buttons in the window (https://www.w3.org/WAI/ARIA/apg/patterns/radio/): one Tab stop per
 * group (roving tabindex on the checked radio, else the first), arrow keys move to the
 * next/previous radio and select it (wrapping), Home/End to the first/last. Selecting is the
 * radio's own click, so each screen keeps its own state. Native `<input type=radio>` groups get
 * this from the browser and are left alone.
 *
 * Installed once on the document (App.svelte): the screens only write the roles and
 * aria-checked, and a group added or re-rendered later is kept in step by a MutationObserver.
 */

const RADIO = '[role="radio"]';

function radiosOf(group: Element): HTMLElement[] {
  return [...group.querySelectorAll<HTMLElement>(RADIO)].filter(
    (r) => r.closest('[role="radiogroup"]') === group && !(r as HTMLButtonElement).disabled && r.getAttribute('aria-disabled') !== 'true',
  );
}

function syncGroup(group: Element): void {
  const radios = radiosOf(group);
  if (radios.length === 0) return;
  const stop = radios.find((r) => r.getAttribute('aria-checked') === 'true') ?? radios[0]!;
  for (const r of radios) {
    const want = r === stop ? 0 : -1;
    if (r.tabIndex !== want) r.tabIndex = want;
  }
}

const NEXT: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

export function installRadioGroups(root: Document | HTMLElement = document): () => void {
  const syncAll = () => root.querySelectorAll('[role="radiogroup"]').forEach(syncGroup);

  const keydown = (e: Event) => {
    const ke = e as KeyboardEvent;
    if (ke.altKey || ke.ctrlKey || ke.metaKey) return;
    const radio = (ke.target as Element | null)?.closest?.(RADIO) as HTMLElement | null;
    const group = radio?.closest('[role="radiogroup"]');
    if (!radio || !group) return;
    const radios = radiosOf(group);
    const at = radios.indexOf(radio);
    let to: number;
    if (ke.key in NEXT) to = (at + NEXT[ke.key]! + radios.length) % radios.length;
    else if (ke.key === 'Home') to = 0;
    else if (ke.key === 'End') to = radios.length - 1;
    else return;
    ke.preventDefault();
    const target = radios[to]!;
    target.focus();
    if (target.getAttribute('aria-checked') !== 'true') target.click();
  };

  root.addEventListener('keydown', keydown);
  const observer = new MutationObserver(syncAll);
  observer.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-checked', 'role', 'disabled'] });
  syncAll();
  return () => {
    root.removeEventListener('keydown', keydown);
    observer.disconnect();
  };
}
