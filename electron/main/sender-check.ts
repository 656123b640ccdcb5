/**
 * The gate's sender check, kept free of run-time electron imports so it can be unit tested:
 * a command is accepted only from the main frame of our window, showing our renderer.
 */
import type { IpcMainInvokeEvent, WebContents } from 'electron';

type SenderEvent = Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>;

export function isOurSender(event: SenderEvent, win: WebContents | null, rendererUrl: string): boolean {
  if (!win || event.sender !== win) return false;
  const frame = event.senderFrame;
  if (!frame || frame !== win.mainFrame) return false;
  return frame.url.startsWith(rendererUrl);
}
