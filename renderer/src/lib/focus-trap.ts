/**
 * The WAI-ARIA modal dialog's focus rules, as a Svelte action for the shared Modal: focus moves
 * into the dialog when it opens, Tab and Shift+Tab cycle inside it (the dimmed page behind is
 * never reached), and focus goes back to the control that opened it when it closes.
 */

const FOCUSABLE = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type=hidden])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  'summary',
  '[tabindex]:not([tabindex="-1"])',
].join(', ');

/** The controls Tab can reach inside `root`, in document order (radios of one group count once: the checked one, else the first). */
export function tabStops(root: HTMLElement): HTMLElement[] {
  const seenGroups = new Set<string>();
  const out: HTMLElement[] = [];
  for (const el of root.querySelectorAll<HTMLElement>(FOCUSABLE)) {
    if (el.closest('[inert], [hidden]')) continue;
    if (el instanceof HTMLInputElement && el.type === 'radio' && el.name) {
      if (seenGroups.has(el.name)) continue;
      seenGroups.add(el.name);
      const checked = root.querySelector<HTMLInputElement>(`input[type=radio][name="${CSS.escape(el.name)}"]:checked:not([disabled])`);
      out.push(checked ?? el);
      continue;
    }
    out.push(el);
  }
  return out;
}

export function trapFocus(node: HTMLElement): { destroy(): void } {
  const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
  let backwards = false;

  const first = () => node.querySelector<HTMLElement>('[data-autofocus]:not([disabled])') ?? tabStops(node)[0] ?? node;
  if (!node.hasAttribute('tabindex')) node.tabIndex = -1;
  first().focus();

  function keydown(e: KeyboardEvent) {
    if (e.key !== 'Tab') return;
    backwards = e.shiftKey;
    const stops = tabStops(node);
    if (stops.length === 0) {
      e.preventDefault();
      node.focus();
      return;
    }
    const active = document.activeElement;
    const at = stops.findIndex((s) => s === active);
    // At an end (or on the dialog itself), wrap round instead of leaving the dialog.
    if (!e.shiftKey && (at === stops.length - 1 || active === node)) {
      e.preventDefault();
      stops[0]!.focus();
    } else if (e.shiftKey && (at === 0 || active === node)) {
      e.preventDefault();
      stops.at(-1)!.focus();
    }
  }

  // Whatever moves focus out (a click on the backdrop, a radio group's own Tab), it comes back in.
  function focusin(e: FocusEvent) {
    const target = e.target as Node | null;
    if (!target || node.contains(target)) return;
    const stops = tabStops(node);
    (backwards ? stops.at(-1) : stops[0])?.focus() ?? node.focus();
  }

  node.addEventListener('keydown', keydown);
  document.addEventListener('focusin', focusin);
  return {
    destroy() {
      node.removeEventListener('keydown', keydown);
      document.removeEventListener('focusin', focusin);
      if (opener?.isConnected) opener.focus();
    },
  };
}
