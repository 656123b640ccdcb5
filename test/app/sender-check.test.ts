import { describe, expect, it } from 'vitest';
import type { WebContents } from 'electron';
import { isOurSender } from '../../electron/main/sender-check.ts';

describe('the IPC gate sender check', () => {
  const mainFrame = { url: 'file:///app/out/renderer/index.html' };
  const win = { mainFrame } as unknown as WebContents;
  const renderer = 'file:///app/out/renderer/index.html';
  const event = (sender: unknown, senderFrame: unknown) => ({ sender, senderFrame }) as Parameters<typeof isOurSender>[0];

  it('accepts only our window’s main frame showing our renderer', () => {
    expect(isOurSender(event(win, mainFrame), win, renderer)).toBe(true);
    expect(isOurSender(event(win, { url: renderer }), win, renderer)).toBe(false); // a subframe
    expect(isOurSender(event({ mainFrame }, mainFrame), win, renderer)).toBe(false); // another webContents (the replay view)
    expect(isOurSender(event(win, mainFrame), null, renderer)).toBe(false);
    const navigatedAway = { mainFrame: { url: 'https://evil.example/' } } as unknown as WebContents;
    expect(isOurSender(event(navigatedAway, navigatedAway.mainFrame), navigatedAway, renderer)).toBe(false);
    expect(isOurSender(event(win, null), win, renderer)).toBe(false);
  });
});
