/**
 * The web preferences every Trove window and view starts from: sandboxed, context-isolated, no
 * Node in the page or its workers, no <webview>, no mixed content. One home, so hardening one
 * window (the app, the replay view, the Record window, the crawl's hidden tabs) cannot be
 * forgotten in another; each adds only its session, preload or needs.
 */
import type { WebPreferences } from 'electron';

export const LOCKED_DOWN: Readonly<WebPreferences> = {
  sandbox: true,
  contextIsolation: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
};
