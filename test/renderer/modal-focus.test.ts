// @vitest-environment happy-dom
// The shared Modal follows the WAI-ARIA dialog pattern: focus moves in when it opens, Tab and
// Shift+Tab cycle inside it, Escape closes it, and focus returns to the opener when it closes.
import { afterEach, describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import { createRawSnippet, flushSync } from 'svelte';
import Modal from '../../renderer/src/components/Modal.svelte';

const body = createRawSnippet(() => ({ render: () => '<div><input data-testid="field" /></div>' }));
const actions = createRawSnippet(() => ({ render: () => '<div><button data-testid="cancel">Cancel</button><button data-testid="ok">OK</button></div>' }));

function tab(shift = false): void {
  const active = document.activeElement as HTMLElement;
  const e = new KeyboardEvent('keydown', { key: 'Tab', shiftKey: shift, bubbles: true, cancelable: true });
  active.dispatchEvent(e);
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('Modal focus', () => {
  it('takes focus, traps Tab and Shift+Tab, closes on Escape and gives focus back to the opener', () => {
    const behind = document.createElement('button');
    behind.textContent = 'Delete';
    document.body.append(behind);
    behind.focus();
    let closed = 0;
    const { getByTestId, unmount } = render(Modal, { title: 'Delete “x”?', onclose: () => closed++, children: body, actions });
    flushSync();
    const dialog = document.querySelector('[role=dialog]')!;
    // In: the first control of the dialog, not the page behind.
    expect(document.activeElement).toBe(getByTestId('field'));
    // (happy-dom does not move focus on Tab itself: the edges, which the dialog handles, are tested.)
    // Past the last control: back to the first, never the page behind.
    getByTestId('ok').focus();
    tab();
    expect(document.activeElement).toBe(getByTestId('field'));
    tab(true);
    expect(document.activeElement).toBe(getByTestId('ok'));
    // Focus sent behind the dialog comes back in.
    behind.focus();
    expect(dialog.contains(document.activeElement)).toBe(true);
    document.activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(closed).toBe(1);
    unmount();
    expect(document.activeElement).toBe(behind);
  });
});
