/**
 * The messages of the tab relay: a crawl worker (relayed-cdp-session.ts) drives tabs owned by
 * another thread (tab-relay-host.ts; in the app, Electron's main process) over one MessagePort.
 * A port delivers in order, so an event the tab emitted before a command's answer arrives before
 * that answer, as on a direct CDP connection. Events cross only for the methods the worker
 * listens to (`listen` / `unlisten`): a page's Network events are many, and most are not wanted.
 */

/** Worker → host. */
export type RelayDown =
  | { type: 'open'; id: number }
  | { type: 'close-tab'; id: number; tab: number }
  | { type: 'send'; id: number; tab: number; method: string; params?: Record<string, unknown> }
  | { type: 'listen'; tab: number; event: string }
  | { type: 'unlisten'; tab: number; event: string };

/** Host → worker. */
export type RelayUp =
  | { type: 'opened'; id: number; tab: number }
  | { type: 'result'; id: number; result: unknown }
  | { type: 'failed'; id: number; message: string }
  | { type: 'event'; tab: number; event: string; params: unknown };
